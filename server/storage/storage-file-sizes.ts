import { statSync } from 'node:fs';
import type { Db } from './open-database.js';

/** The bytes the state database takes on disk: its main file and its write-ahead log. */
export interface StorageFileSizes {
  database: number;
  wal: number;
}

/** Read from SQLite's page count (no file system call) and the size of the -wal file (0 when there is none). */
export function storageFileSizes(db: Db): StorageFileSizes {
  const pages = db.pragma('page_count', { simple: true }) as number;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  return { database: pages * pageSize, wal: statSync(`${db.name}-wal`, { throwIfNoEntry: false })?.size ?? 0 };
}
