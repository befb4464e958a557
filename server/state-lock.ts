import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ownerOnlyDatabaseFile, restrictToOwner } from '../common/owner-only.js';
import { adoptOwner } from './storage/adopt-owner.js';
import { StateDirBusyError } from './storage/storage-errors.js';

export const stateLockFileName = 'server.lock';

export interface StateLock {
  file: string;
  release: () => void;
}

/**
 * Takes the state directory's exclusive lock, held until `release()` or the process ends. The server
 * holds it while it runs and `dbmon restore` while it replaces the database, so neither can run
 * under the other. The lock is SQLite's POSIX advisory lock on `<state dir>/server.lock`
 * (locking_mode=EXCLUSIVE after one write): the kernel drops it when its process dies however it
 * dies, so a stale file never blocks anyone, unlike a pid file.
 * Throws StateDirBusyError when another process (or connection) holds it.
 */
export function acquireStateLock(stateDir: string, now = new Date()): StateLock {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  restrictToOwner(stateDir);
  const file = join(stateDir, stateLockFileName);
  ownerOnlyDatabaseFile(file);
  adoptOwner(file, stateDir);
  const db = new Database(file, { timeout: 0 });
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, since TEXT NOT NULL)');
    db.exec('DELETE FROM holder');
    db.prepare('INSERT INTO holder (pid, since) VALUES (?, ?)').run(process.pid, now.toISOString());
    db.exec('COMMIT');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new StateDirBusyError(file);
    throw error;
  }
  return { file, release: () => db.close() };
}
