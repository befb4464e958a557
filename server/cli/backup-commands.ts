import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { databaseFileName } from '../state-dir.js';
import { backupDatabase } from '../storage/backup-database.js';
import { readMigrations } from '../storage/migrate.js';
import { restoreDatabase } from '../storage/restore-database.js';
import { MissingDatabaseError, StorageError } from '../storage/storage-errors.js';

export interface BackupCommandIo {
  stdout: (line: string) => void;
}

export interface BackupOptions {
  /** Replace an existing FILE; without it an existing file is an error. */
  force: boolean;
}

/** `dbmon backup FILE`: an online copy of the state database, safe while the server runs and ingests. */
export async function backupCommand(stateDir: string, target: string, options: BackupOptions, io: BackupCommandIo): Promise<number> {
  const source = join(stateDir, databaseFileName);
  if (!existsSync(source)) throw new MissingDatabaseError(source);
  const file = resolve(target);
  if (!existsSync(dirname(file)) || !statSync(dirname(file)).isDirectory()) {
    throw new StorageError(`cannot write the backup: ${dirname(file)} is not a directory`, 73);
  }
  if (existsSync(file) && !options.force) throw new StorageError(`cannot write the backup: ${file} exists; add --force to replace it`, 73);
  // No migration and no state-directory set-up: a backup copies the database exactly as it is.
  const db = new Database(source, { fileMustExist: true, timeout: 5000 });
  try {
    const result = await backupDatabase(db, file);
    io.stdout(`backed up ${source} (schema version ${result.schemaVersion}, ${result.bytes} bytes) to ${result.file}`);
    return 0;
  } finally {
    db.close();
  }
}

/** `dbmon restore FILE`: replaces the state database with a checked backup; refuses while the server runs. */
export function restoreCommand(stateDir: string, source: string, io: BackupCommandIo): number {
  const knownVersion = Math.max(0, ...readMigrations().map((migration) => migration.version));
  const result = restoreDatabase(resolve(source), stateDir, databaseFileName, knownVersion);
  io.stdout(`restored ${resolve(source)} (schema version ${result.schemaVersion}) into ${join(stateDir, databaseFileName)}`);
  if (result.previous !== undefined) io.stdout(`the replaced database is kept as ${result.previous}`);
  return 0;
}
