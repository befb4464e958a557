import Database from 'better-sqlite3';
import { ownerOnlyDatabaseFile } from '../../common/owner-only.js';

export type Db = Database.Database;

/** Runs `work` in one SQLite transaction; it must not await. */
export type Transaction = <T>(work: () => T) => T;

/**
 * `transaction`, its commit not fsynced (synchronous=NORMAL for its length): atomic and consistent,
 * but durable only once a later commit syncs the WAL behind it. For work no client has been told
 * is stored yet, so that a request's several transactions cost one fsync, its last one's.
 */
export function unsynced(db: Db, transaction: Transaction): Transaction {
  return (work) => {
    db.pragma('synchronous = NORMAL');
    try {
      return transaction(work);
    } finally {
      db.pragma('synchronous = FULL');
    }
  };
}

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
