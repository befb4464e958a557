import { closeSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { adoptOwner } from './adopt-owner.js';
import type { Db } from './open-database.js';
import { fsyncPath } from './fsync-path.js';

/**
 * A synchronous, consistent copy of `db` into a new owner-only file (`VACUUM INTO`: one read
 * transaction, compacted, no WAL beside it). For the copy taken before migrations, which run
 * synchronously at start-up; `backupDatabase` is the online backup for a running server.
 */
export function snapshotDatabase(db: Db, file: string): void {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  adoptOwner(dir, dirname(dir));
  closeSync(openSync(file, 'wx', 0o600));
  try {
    db.prepare('VACUUM INTO ?').run(file);
    adoptOwner(file, dir);
    fsyncPath(file);
    fsyncPath(dir);
  } catch (error) {
    rmSync(file, { force: true });
    throw error;
  }
}
