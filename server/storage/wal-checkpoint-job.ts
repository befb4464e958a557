import type { BackgroundJob } from '../jobs/background-job.js';
import type { Db } from './open-database.js';

const periodMs = 1_000;

/**
 * Moves WAL checkpoints off the commit path. SQLite's automatic checkpoint runs inside whichever
 * commit crosses 1,000 WAL pages: an ingest batch or a rollup slice then also copies the WAL into
 * the database file and fsyncs it (2.1 s seen in one slice). This turns it off on `db` and returns
 * the job that checkpoints instead, every second in a slice of its own between requests, each time
 * only what the last second wrote. Only for a connection whose scheduler runs the job: without it
 * the WAL would grow until the connection closes.
 */
export function checkpointInBackground(db: Db): BackgroundJob {
  db.pragma('wal_autocheckpoint = 0');
  return {
    name: 'wal_checkpoint',
    periodMs,
    slice: () => {
      // PASSIVE: copies what no reader still needs, never waits for one.
      db.pragma('wal_checkpoint(PASSIVE)');
      return false;
    },
  };
}
