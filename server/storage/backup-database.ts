import { closeSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { checkDatabaseFile } from './check-database-file.js';
import type { Db } from './open-database.js';
import { fsyncPath } from './fsync-path.js';

export interface BackupResult {
  file: string;
  schemaVersion: number;
  bytes: number;
}

/** One step of this many pages is "everything": sqlite3_backup_step copies it in one read transaction. */
const allPages = 0x7fffffff;

/**
 * A consistent online copy of `db` at `target` (mode 0600), through SQLite's backup API, while other
 * connections keep writing. The copy is made in one step: in WAL mode that is one read transaction,
 * so it holds exactly the transactions committed before it began and writers are never blocked
 * (a copy in many small steps would restart whenever another connection writes, and might never
 * finish under a steady ingest). It is written to a temporary name beside the target, checked
 * (integrity, schema version), made durable and only then renamed over the target.
 */
export async function backupDatabase(db: Db, target: string): Promise<BackupResult> {
  const partial = join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
  // Owner-only from the first byte: created empty here, the backup writes into it.
  closeSync(openSync(partial, 'wx', 0o600));
  try {
    await db.backup(partial, { progress: () => allPages });
    const { schemaVersion } = checkDatabaseFile(partial);
    fsyncPath(partial);
    renameSync(partial, target);
    fsyncPath(dirname(target));
    return { file: target, schemaVersion, bytes: statSync(target).size };
  } catch (error) {
    for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${partial}${suffix}`, { force: true });
    throw error;
  }
}
