import { Worker } from 'node:worker_threads';
import type { BackgroundJob } from '../jobs/background-job.js';
import type { Db } from './open-database.js';

const periodMs = 1_000;
const workerFile = new URL('./wal-checkpoint-worker.js', import.meta.url);

/** The checkpoint job, and how to end its worker thread once the scheduler has stopped. */
export interface WalCheckpointJob extends BackgroundJob {
  slice(now: Date, budgetMs: number): Promise<false>;
  /** Closes the worker's connection and ends the thread; before `db` closes. */
  stop(): Promise<void>;
}

/**
 * Moves WAL checkpoints off the commit path and off the event loop. SQLite's automatic checkpoint
 * runs inside whichever commit crosses 1,000 WAL pages: an ingest batch or a rollup slice then also
 * copies the WAL into the database file and fsyncs it (2.1 s seen in one slice). This turns it off
 * on `db` and returns the job that checkpoints instead, every second, each time only what the last
 * second wrote, in a worker thread on a connection of its own (a PASSIVE checkpoint runs beside
 * the writer). Only for a connection whose scheduler runs the job: without it the WAL would grow
 * until the connection closes.
 */
export function checkpointInBackground(db: Db): WalCheckpointJob {
  db.pragma('wal_autocheckpoint = 0');
  let worker: Worker | undefined;
  let pending: { resolve: () => void; reject: (error: Error) => void } | undefined;
  const settle = (error?: Error) => {
    const waiting = pending;
    pending = undefined;
    if (error === undefined) waiting?.resolve();
    else waiting?.reject(error);
  };
  // Started on the first slice, and again after a worker that failed: a pass never waits on a dead one.
  const started = () => {
    if (worker !== undefined) return worker;
    const thread = new Worker(workerFile, { workerData: { file: db.name }, execArgv: [] });
    const ended = (error: Error) => {
      if (worker !== thread) return;
      worker = undefined;
      settle(error);
    };
    thread.on('message', () => settle());
    // What a worker throws arrives as a structured clone (a SqliteError as a plain object with its code).
    thread.on('error', (error) => ended(new Error('the WAL checkpoint worker failed', { cause: error })));
    thread.on('exit', (code) => ended(new Error(`the WAL checkpoint worker exited (code ${code})`)));
    return (worker = thread);
  };
  return {
    name: 'wal_checkpoint',
    periodMs,
    slice: () =>
      new Promise<false>((resolve, reject) => {
        pending = { resolve: () => resolve(false), reject };
        started().postMessage('checkpoint');
      }),
    stop: async () => {
      const thread = worker;
      if (thread === undefined) return;
      const exited = new Promise((resolve) => thread.once('exit', resolve));
      thread.postMessage('close');
      await exited;
    },
  };
}
