import Database from 'better-sqlite3';
import { ownerOnlyDatabaseFile } from '../../common/owner-only.js';
import { fsyncFileInBackground } from './fsync-path.js';

export type Db = Database.Database;

/** Runs `work` in one SQLite transaction; it must not await. */
export type Transaction = <T>(work: () => T) => T;

/**
 * `transaction`, its commit not fsynced (synchronous=NORMAL for its length): atomic and consistent,
 * but durable only once the WAL behind it is synced (a later synced commit, or syncWal). For work
 * no client has been told is stored yet.
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
 * Makes every commit so far durable, as synchronous=FULL would have at each: fsyncs the WAL (an
 * fsync is of the file, whichever descriptor asks), in the thread pool rather than on the event
 * loop, where it took up to 85 ms on a busy disk.
 */
export function walSync(db: Db): () => Promise<void> {
  return () => fsyncFileInBackground(`${db.name}-wal`);
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
