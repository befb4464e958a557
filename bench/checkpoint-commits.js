// Where SQLite's WAL checkpoints land: inside commits (its automatic checkpoint at 1,000 WAL pages,
// the server's behaviour before #14 step 2) or in a background job of their own every second
// (server/storage/wal-checkpoint-job.ts). Each run commits `--commits` transactions of about
// `--pages` pages (an ingest batch of 50 collections dirties about that many) into a state
// database opened as the server opens it, one every `--every-ms`, and reports how long commits and
// checkpoint slices held the thread.
//
//   npm run build && node bench/checkpoint-commits.js [--commits 300] [--pages 150] [--every-ms 50]
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { repoRoot } from './fleet-state.js';
import { integerFlag, out, percentile } from './output.js';

const { values: flags } = parseArgs({
  options: { commits: { type: 'string', default: '300' }, pages: { type: 'string', default: '150' }, 'every-ms': { type: 'string', default: '50' } },
  strict: true,
});
const commits = integerFlag(flags, 'commits');
const pages = integerFlag(flags, 'pages');
const everyMs = integerFlag(flags, 'every-ms');
const load = (path) => import(pathToFileURL(join(repoRoot, 'dist', path)).href);
const [{ openDatabase }, { checkpointInBackground }] = await Promise.all([load('server/storage/open-database.js'), load('server/storage/wal-checkpoint-job.js')]);

const fmt = (ms) => ms.toFixed(1);
async function run(background) {
  const dir = mkdtempSync(join(tmpdir(), 'dbmon-checkpoints-'));
  const db = openDatabase(join(dir, 'state.db'));
  try {
    db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, data BLOB)');
    const insert = db.prepare('INSERT INTO filler (data) VALUES (randomblob(?))');
    const job = background ? checkpointInBackground(db) : undefined;
    const commitMs = [];
    const sliceMs = [];
    let lastCheckpoint = performance.now();
    let inFlight;
    for (let commit = 0; commit < commits; commit++) {
      const started = performance.now();
      db.transaction(() => {
        for (let row = 0; row < pages; row++) insert.run(4000);
      })();
      commitMs.push(performance.now() - started);
      if (job !== undefined && inFlight === undefined && performance.now() - lastCheckpoint >= job.periodMs) {
        const sliceStarted = performance.now();
        // The slice hands the checkpoint to its worker thread; what it held this thread for is the figure.
        inFlight = job.slice(new Date(), 20).finally(() => {
          inFlight = undefined;
          lastCheckpoint = performance.now();
        });
        sliceMs.push(performance.now() - sliceStarted);
      }
      await sleep(everyMs);
    }
    await inFlight;
    await job?.stop();
    const line = `commit p50 ${fmt(percentile(commitMs, 0.5))} ms, p99 ${fmt(percentile(commitMs, 0.99))} ms, max ${fmt(Math.max(...commitMs))} ms`;
    const slices = sliceMs.length === 0 ? '' : `; ${sliceMs.length} checkpoint slices: p50 ${fmt(percentile(sliceMs, 0.5))} ms, max ${fmt(Math.max(...sliceMs))} ms`;
    out(`${background ? 'background job   ' : 'inside commits   '}: ${line}${slices}`);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

out(`${commits} commits of ${pages} pages every ${everyMs} ms; cores ${availableParallelism()}, node ${process.version}, load average ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
for (const background of [false, true, false, true]) await run(background);
