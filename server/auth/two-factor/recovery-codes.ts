import { randomInt } from 'node:crypto';

export const recoveryCodeCount = 10;
/** Crockford's Base32 letters, without the ones read for others (i, l, o, u). */
const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
const groups = 4;
const groupLength = 4;

/** A set of recovery codes: 16 characters of 32 each (80 bits, from the CSPRNG), shown as `xxxx-xxxx-xxxx-xxxx`. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: recoveryCodeCount }, () =>
    Array.from({ length: groups }, () => Array.from({ length: groupLength }, () => alphabet[randomInt(alphabet.length)]).join('')).join('-'),
  );
}

/** A code as typed (any case, with or without hyphens and spaces) in the form it was hashed in; undefined when it cannot be one. */
export function normalizeRecoveryCode(typed: string): string | undefined {
  const letters = typed.toLowerCase().replace(/[\s-]/g, '');
  if (letters.length !== groups * groupLength || [...letters].some((letter) => !alphabet.includes(letter))) return undefined;
  return letters.match(new RegExp(`.{${groupLength}}`, 'g'))!.join('-');
}
