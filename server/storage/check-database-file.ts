import Database from 'better-sqlite3';
import { InvalidBackupError } from './storage-errors.js';
import { readSchemaVersion } from './schema-version.js';

export interface CheckedDatabase {
  schemaVersion: number;
}

/**
 * Proves a database file sound and self-contained: `PRAGMA integrity_check` answers ok, it was made
 * by dbmon (has a schema version), and it is switched to a rollback journal so that the one file
 * is the whole database (no -wal beside it to lose when it is copied or renamed). Errors name
 * `shownAs`: the user's file when `file` is a working copy of it.
 */
export function checkDatabaseFile(file: string, shownAs = file): CheckedDatabase {
  let db: Database.Database;
  try {
    db = new Database(file, { fileMustExist: true, timeout: 5000 });
  } catch (error) {
    throw new InvalidBackupError(shownAs, `cannot open: ${(error as Error).message}`);
  }
  try {
    const problems = db.prepare('PRAGMA integrity_check').pluck().all() as string[];
    if (problems.length !== 1 || problems[0] !== 'ok') {
      throw new InvalidBackupError(shownAs, `integrity check failed: ${problems.slice(0, 3).join('; ')}`);
    }
    const schemaVersion = readSchemaVersion(db);
    if (schemaVersion === 0) throw new InvalidBackupError(shownAs, 'not a dbmon database (no schema version)');
    db.pragma('journal_mode = DELETE');
    return { schemaVersion };
  } catch (error) {
    if (error instanceof InvalidBackupError) throw error;
    throw new InvalidBackupError(shownAs, (error as Error).message);
  } finally {
    db.close();
  }
}
