import { createHash } from 'node:crypto';
import { sameSecret } from '../../crypto/same-secret.js';

/** RFC 7636 §4.1/§4.2: 43 to 128 unreserved characters (a challenge S256 makes is 43). */
const pkcePattern = /^[A-Za-z0-9._~-]{43,128}$/;

export function isPkceValue(value: string): boolean {
  return pkcePattern.test(value);
}

/** Whether the verifier is the one the S256 challenge was made from: BASE64URL(SHA256(verifier)) = challenge. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  return isPkceValue(verifier) && sameSecret(createHash('sha256').update(verifier).digest('base64url'), challenge);
}
