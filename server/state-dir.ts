import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { restrictToOwner } from '../common/owner-only.js';
import { loadSecretKey } from './crypto/load-secret-key.js';
import { openDatabase, type Db } from './storage/open-database.js';

export const databaseFileName = 'dbmon.db';

export interface OpenState {
  db: Db;
  secretKey: Buffer;
}

/** Opens (creating on first use, owner-only) the state directory: the database and the secret key. */
export function openStateDir(stateDir: string, configuredSecretKey: string | undefined): OpenState {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  restrictToOwner(stateDir);
  const db = openDatabase(join(stateDir, databaseFileName));
  return { db, secretKey: loadSecretKey(configuredSecretKey, stateDir) };
}
