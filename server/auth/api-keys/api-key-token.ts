import { checksummedTokenPrefix, hashTokenBase64, issueChecksummedToken, type IssuedToken } from '../../crypto/checksummed-token.js';

export { hashToken, type IssuedToken } from '../../crypto/checksummed-token.js';

export type ApiKeyKind = 'personal' | 'service_account';

const typePrefix: Record<ApiKeyKind, string> = { personal: 'dbm_pat_', service_account: 'dbm_sak_' };

export function issueToken(kind: ApiKeyKind): IssuedToken {
  return issueChecksummedToken(typePrefix[kind]);
}

/** `hash`: the value's SHA-256 in base64. */
export type TokenCheck = { ok: true; kind: ApiKeyKind; hash: string } | { ok: false };

/** Shape and checksum, checked before any lookup so typos and guesses never reach storage. */
export function checkToken(value: string): TokenCheck {
  const prefix = checksummedTokenPrefix(value, Object.values(typePrefix));
  if (prefix === undefined) return { ok: false };
  return { ok: true, kind: prefix === typePrefix.personal ? 'personal' : 'service_account', hash: hashTokenBase64(value) };
}
