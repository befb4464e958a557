import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const version = 1;
const ivLength = 12;
const tagLength = 16;

/**
 * AES-256-GCM for secrets at rest. The associated data binds a ciphertext to its owner
 * (a database id, say) so a ciphertext copied onto another row does not decrypt.
 * Layout: version byte, IV, tag, ciphertext.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
    this.#key = key;
  }

  seal(plaintext: string, associatedData: string): Buffer {
    const iv = randomBytes(ivLength);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(associatedData));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([version]), iv, cipher.getAuthTag(), ciphertext]);
  }

  open(sealed: Buffer, associatedData: string): string {
    if (sealed[0] !== version) throw new Error('Unknown secret format');
    const iv = sealed.subarray(1, 1 + ivLength);
    const tag = sealed.subarray(1 + ivLength, 1 + ivLength + tagLength);
    const decipher = createDecipheriv('aes-256-gcm', this.#key, iv);
    decipher.setAAD(Buffer.from(associatedData));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed.subarray(1 + ivLength + tagLength)), decipher.final()]).toString('utf8');
  }
}
