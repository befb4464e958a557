import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { restrictToOwner } from '../../common/owner-only.js';

export const secretKeyFileName = 'secret.key';

/** Decodes the configured key, or reads (creating it on first start) `<state dir>/secret.key`. */
export function loadSecretKey(configured: string | undefined, stateDir: string): Buffer {
  if (configured !== undefined) return decodeKey(configured);
  const file = join(stateDir, secretKeyFileName);
  if (!existsSync(file)) {
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  }
  restrictToOwner(file);
  const key = decodeKey(readFileSync(file, 'utf8').trim());
  return key;
}

function decodeKey(text: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error('secret key must be 32 bytes (64 hex digits or base64)');
  return key;
}
