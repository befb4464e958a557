import type { SecretBox } from '../../../common/secret-box.js';

/** The SMS factor's phone numbers, sealed at rest; a sealed number opens only for its own user. */
export class PhoneBox {
  constructor(private readonly secretBox: SecretBox) {}

  seal(userId: string, phone: string): Buffer {
    return this.secretBox.seal(phone, sealedFor(userId));
  }

  open(userId: string, sealed: Buffer): string {
    return this.secretBox.open(sealed, sealedFor(userId));
  }
}

/** Not the TOTP secret's binding: a sealed number copied into the secret column does not open as a secret. */
function sealedFor(userId: string): string {
  return `two_factor_phone:${userId}`;
}
