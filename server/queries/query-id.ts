import { createHash } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 62^22 > 2^128: 22 base62 characters hold a 128-bit hash prefix exactly, so every id has the same length. */
const idLength = 22;

/**
 * The stable id of a statement of a database: `query_` and 22 base62 characters of the first
 * 128 bits of SHA-256 over the database id and the engine's query id (pg_stat_statements queryid,
 * performance_schema digest). The same statement keeps its id across collections, agents and restarts.
 */
export function queryIdOf(databaseId: string, fingerprint: string): string {
  const digest = createHash('sha256').update(`${databaseId}\n${fingerprint}`).digest();
  let value = BigInt(`0x${digest.subarray(0, 16).toString('hex')}`);
  let out = '';
  for (let i = 0; i < idLength; i++) {
    out = alphabet[Number(value % 62n)] + out;
    value /= 62n;
  }
  return `query_${out}`;
}
