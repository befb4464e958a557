// The worker thread of wal-checkpoint-job.ts: checkpoints the state database on a connection of its
// own, so that copying the WAL into the database file and its fsync hold this thread, not the
// server's event loop. Plain JavaScript: it starts without the TypeScript loader tests run under.
// The connection is SQLite's own (same process, same library): closing it keeps the process's
// POSIX locks, which SQLite tracks across its connections.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database(workerData.file, { fileMustExist: true });
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  // PASSIVE: copies what no reader still needs, never waits for a reader or the writer.
  db.pragma('wal_checkpoint(PASSIVE)');
  parentPort.postMessage('checkpointed');
});
