import Database from 'better-sqlite3';
import { ownerOnlyDatabaseFile } from '../../common/owner-only.js';

export type Db = Database.Database;

/** Runs `work` in one SQLite transaction; it must not await. */
export type Transaction = <T>(work: () => T) => T;

/**
 * Opens the state database. WAL lets readers run beside the single writer; synchronous=FULL
 * makes WAL fsync on every commit, so a write acknowledged to a client survives power loss
 * (NORMAL would only guarantee consistency, not durability of the last commits).
 */
export function openDatabase(file: string): Db {
  ownerOnlyDatabaseFile(file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}
