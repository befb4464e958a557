import { checksummedTokenPrefix, hashTokenBase64, issueChecksummedToken, tokenPrefixAtLength, type IssuedToken } from '../../crypto/checksummed-token.js';

export { hashToken, type IssuedToken } from '../../crypto/checksummed-token.js';

export type ApiKeyKind = 'personal' | 'service_account';

const typePrefix: Record<ApiKeyKind, string> = { personal: 'dbm_pat_', service_account: 'dbm_sak_' };
const prefixes = Object.values(typePrefix);

export function issueToken(kind: ApiKeyKind): IssuedToken {
  return issueChecksummedToken(typePrefix[kind]);
}

/** `hash`: the value's SHA-256 in base64. */
export type TokenCheck = { ok: true; kind: ApiKeyKind; hash: string } | { ok: false };

/** A key's prefix and length, not yet its characters or checksum: a value that may be hashed (its length is bounded). */
export function hasKeyShape(value: string): boolean {
  return tokenPrefixAtLength(value, prefixes) !== undefined;
}

/** Shape and checksum, checked before any lookup so typos and guesses never reach storage. */
export function checkToken(value: string): TokenCheck {
  const prefix = checksummedTokenPrefix(value, prefixes);
  if (prefix === undefined) return { ok: false };
  return { ok: true, kind: prefix === typePrefix.personal ? 'personal' : 'service_account', hash: hashTokenBase64(value) };
}
