import { copyFileSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { restrictToOwner } from '../../common/owner-only.js';
import { acquireStateLock } from '../state-lock.js';
import { adoptOwner } from './adopt-owner.js';
import { checkDatabaseFile } from './check-database-file.js';
import { fsyncPath } from './fsync-path.js';
import { InvalidBackupError, SchemaTooNewError } from './storage-errors.js';

export interface RestoreResult {
  schemaVersion: number;
  /** Where the database that was replaced now is, if there was one. */
  previous: string | undefined;
}

export const beforeRestoreSuffix = '.before-restore';

/**
 * Replaces `<stateDir>/<databaseFile>` with the backup `source`. Holds the state directory's lock
 * throughout, so it refuses (StateDirBusyError) while the server runs and the server cannot start
 * half-way. The backup is copied beside the database first and the copy is checked (integrity,
 * a schema version this dbmon knows), so a bad file changes nothing. The replaced database is kept
 * as `<databaseFile>.before-restore` (with its -wal or -journal, if it could not be checkpointed).
 */
export function restoreDatabase(source: string, stateDir: string, databaseFile: string, knownVersion: number): RestoreResult {
  if (!existsSync(source)) throw new InvalidBackupError(source, 'no such file');
  const sourceWal = `${source}-wal`;
  if (existsSync(sourceWal) && statSync(sourceWal).size > 0) {
    throw new InvalidBackupError(source, `has a write-ahead log beside it (${sourceWal}); copy the database with "dbmon backup" instead`);
  }
  const lock = acquireStateLock(stateDir);
  try {
    const target = join(stateDir, databaseFile);
    const incoming = `${target}.restoring`;
    removeDatabaseFiles(incoming);
    copyFileSync(source, incoming);
    let schemaVersion: number;
    try {
      restrictToOwner(incoming);
      adoptOwner(incoming, stateDir);
      ({ schemaVersion } = checkDatabaseFile(incoming, source));
      if (schemaVersion > knownVersion) throw new SchemaTooNewError(schemaVersion, knownVersion);
      fsyncPath(incoming);
    } catch (error) {
      removeDatabaseFiles(incoming);
      throw error;
    }
    const previous = existsSync(target) ? setAside(target) : undefined;
    renameSync(incoming, target);
    fsyncPath(stateDir);
    return { schemaVersion, previous };
  } finally {
    lock.release();
  }
}

/** Moves the current database to `.before-restore`, folded into one file when it can be. */
function setAside(target: string): string {
  try {
    const db = new Database(target, { fileMustExist: true, timeout: 5000 });
    try {
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
  } catch {
    // A damaged database (perhaps why it is being restored) is moved as it is, -wal and all.
  }
  const aside = `${target}${beforeRestoreSuffix}`;
  // A -wal left from an earlier restore must not be replayed into this one.
  removeDatabaseFiles(aside);
  renameSync(target, aside);
  for (const suffix of ['-wal', '-journal']) {
    if (existsSync(`${target}${suffix}`)) renameSync(`${target}${suffix}`, `${aside}${suffix}`);
  }
  rmSync(`${target}-shm`, { force: true });
  return aside;
}

function removeDatabaseFiles(file: string): void {
  for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
}
