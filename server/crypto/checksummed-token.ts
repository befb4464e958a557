import * as crypto from 'node:crypto';
import { crc32 } from 'node:zlib';
import { encodeBase62, randomBase62 } from './base62.js';

const randomLength = 32;
const checksumLength = 6;

/** A bearer secret as the server hands it out once: the value, and what is stored of it. */
export interface IssuedToken {
  value: string;
  hash: Buffer;
  prefix: string;
  last4: string;
}

/**
 * `<prefix>` + 32 base62 random characters (190 bits) + 6 base62 characters of CRC32 over the rest: the
 * form of every secret the API hands out (keys, OAuth tokens and client secrets), so a secret scanner
 * knows them by prefix and a typo never reaches storage.
 */
export function issueChecksummedToken(prefix: string): IssuedToken {
  const body = prefix + randomBase62(randomLength);
  const value = body + checksum(body);
  return { value, hash: hashToken(value), prefix, last4: value.slice(-4) };
}

/** The prefix among `prefixes` that `value` starts with, at a token's length; undefined for anything else. Its characters and checksum are not checked. */
export function tokenPrefixAtLength(value: string, prefixes: readonly string[]): string | undefined {
  const prefix = prefixes.find((candidate) => value.startsWith(candidate));
  return prefix !== undefined && value.length === prefix.length + randomLength + checksumLength ? prefix : undefined;
}

/** The prefix of a well-formed value among `prefixes`, its checksum right; undefined for anything else. */
export function checksummedTokenPrefix(value: string, prefixes: readonly string[]): string | undefined {
  const prefix = tokenPrefixAtLength(value, prefixes);
  if (prefix === undefined) return undefined;
  if (!/^[0-9A-Za-z]+$/.test(value.slice(prefix.length))) return undefined;
  const body = value.slice(0, -checksumLength);
  return checksum(body) === value.slice(-checksumLength) ? prefix : undefined;
}

/**
 * What is stored of a secret: its SHA-256 (the secrets are random and long, so no slow hash is
 * needed). crypto.hash (Node.js 20.12) hashes a short secret in a third of the time a Hash object
 * takes: a few microseconds of every authenticated request.
 */
export function hashToken(value: string): Buffer {
  return crypto.hash('sha256', value, 'buffer');
}

/** hashToken's bytes in base64: what the credential caches key their lookups by. */
export function hashTokenBase64(value: string): string {
  return crypto.hash('sha256', value, 'base64');
}

function checksum(body: string): string {
  return encodeBase62(crc32(body), checksumLength);
}
