import { createHash, timingSafeEqual } from 'node:crypto';

/** Whether a presented secret equals the expected one, in constant time whatever the lengths (both are hashed to 32 bytes first); an empty one never matches. */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return given !== '' && timingSafeEqual(digest(given), digest(expected));
}
