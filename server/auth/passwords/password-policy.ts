import { dictionary } from '@zxcvbn-ts/language-common';
import { InvalidRequestError } from '../../errors.js';

export const passwordMinLength = 12;
export const passwordMaxLength = 256;

let commonPasswords: ReadonlySet<string> | undefined;

/** zxcvbn-ts's list of passwords most often seen in breaches, lower-cased; read on first use, not at import. */
function isCommon(password: string): boolean {
  commonPasswords ??= new Set(dictionary['passwords-common'].map((entry) => entry.toLowerCase()));
  return commonPasswords.has(password.toLowerCase());
}

/**
 * NIST SP 800-63B 3.1.1.2: length 12..256 (counted in code points, any characters, no composition
 * rules), not a commonly used password, not the account's own email address.
 */
export function checkNewPassword(password: string, email: string, param = 'password'): void {
  const length = [...password].length;
  if (length < passwordMinLength || length > passwordMaxLength) {
    throw new InvalidRequestError('invalid_parameter', `The password must be ${passwordMinLength} to ${passwordMaxLength} characters long`, param);
  }
  if (isCommon(password) || password.toLowerCase() === email.toLowerCase()) {
    throw new InvalidRequestError('password_too_common', 'This password is too common or too easy to guess; choose another', param);
  }
}
