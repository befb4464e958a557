import { randomBase62 } from './base62.js';

/** 43 base62 characters: 43 × log2(62) ≈ 256 bits. */
const length = 43;
const pattern = /^[0-9A-Za-z]{43}$/;

/** A fresh 256-bit secret (a session cookie's value, a one-time link's token). */
export function newSecretToken(): string {
  return randomBase62(length);
}

/** True when `value` has the shape of a secret token; anything else is refused before a lookup. */
export function isSecretToken(value: string): boolean {
  return pattern.test(value);
}
