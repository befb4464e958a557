import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { encodeBase62, randomBase62 } from '../../crypto/base62.js';

export type ApiKeyKind = 'personal' | 'service_account';

const typePrefix: Record<ApiKeyKind, string> = { personal: 'dbm_pat_', service_account: 'dbm_sak_' };
const randomLength = 32;
const checksumLength = 6;
const tokenPattern = /^dbm_(pat|sak)_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;

export interface IssuedToken {
  value: string;
  hash: Buffer;
  prefix: string;
  last4: string;
}

export function issueToken(kind: ApiKeyKind): IssuedToken {
  const body = typePrefix[kind] + randomBase62(randomLength);
  const value = body + checksum(body);
  return { value, hash: hashToken(value), prefix: typePrefix[kind], last4: value.slice(-4) };
}

export type TokenCheck = { ok: true; kind: ApiKeyKind; hash: Buffer } | { ok: false };

/** Shape and checksum, checked before any lookup so typos and guesses never reach storage. */
export function checkToken(value: string): TokenCheck {
  const match = tokenPattern.exec(value);
  if (match === null) return { ok: false };
  const body = value.slice(0, -checksumLength);
  if (checksum(body) !== match[3]) return { ok: false };
  return { ok: true, kind: match[1] === 'pat' ? 'personal' : 'service_account', hash: hashToken(value) };
}

export function hashToken(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function checksum(body: string): string {
  return encodeBase62(crc32(body), checksumLength);
}
