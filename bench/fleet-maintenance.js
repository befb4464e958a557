// Background passes over a fleet's stored history, in this process, with a checkout's code (see
// fleet-state.js): the rollup fold of one new minute of every database, the fold of a late minute
// (6 h old), and the retention pass; each pass's wall time and the longest the event loop was held
// meanwhile (perf_hooks.monitorEventLoopDelay, 1 ms resolution).
//
//   npm run build && node bench/fleet-maintenance.js [--root DIR] [--databases 200] [--days 7] [--rounds 3]
//
// Works on a copy of the cached state directory (removed afterwards). The code of `--root` decides
// how a pass runs: a synchronous call where it has one (the code before #14), else the job's slices
// through its JobScheduler, as the server runs them. Round r writes the minute r after the stored
// history and runs retention at its end, so each retention pass drops about one minute of every kind.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeRun, fleetArgs, fleetSnapshot, fleetState, foldAll, openFleet } from './fleet-state.js';
import { integerFlag, out } from './output.js';

const flags = fleetArgs({ rounds: { type: 'string', default: '3' } });
const rounds = integerFlag(flags, 'rounds');
const minute = 60_000;

const { dir, fleet } = await fleetState(flags);
const copy = mkdtempSync(join(tmpdir(), 'dbmon-bench-maintenance-'));
try {
  out(describeRun(flags));
  out(`copying ${dir}`);
  cpSync(dir, copy, { recursive: true });
  const { server, db, services } = await openFleet(flags.root, copy, new Date(fleet.endMs));
  const sliced = typeof services.rollups.fold !== 'function';
  const scheduler = sliced ? await server.load('server/jobs/job-scheduler.js') : undefined;
  const { createLogger } = await server.load('common/logger.js');
  const agents = fleet.agents.map(({ id }) => services.agents.all().find((agent) => agent.id === id));
  let random = 0.5;
  const next = () => (random = (random * 9301 + 49297) % 233280) / 233280;

  /** One collection of every database at each of these instants, as 4 agents send it. */
  function ingest(ticks, now) {
    let stored = 0;
    for (const [a, agent] of agents.entries()) {
      const mine = fleet.databases.filter((database) => database.agent === a);
      const samples = ticks.flatMap((ts) => mine.map((database) => ({ database_id: database.id, snapshot: fleetSnapshot(ts, database.index, next) })));
      stored += services.ingest.ingest({ kind: 'agent', agent }, { batch_id: `maintenance-${a}-${ticks[0]}`, samples }, now).stored;
    }
    return stored;
  }

  /** Wall time of `work` and the longest the event loop was held meanwhile. */
  async function measure(work) {
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    // The histogram's first tick only starts its clock: let it run before the work does.
    await sleep(20);
    const started = performance.now();
    const slices = await work();
    const wall = performance.now() - started;
    await sleep(20);
    delay.disable();
    return { wall, blockMs: delay.max / 1e6, slices };
  }

  /** One pass of a job through the scheduler the server uses; its slices' count and longest one. */
  function schedulerPass(job, now) {
    const slices = { count: 0, longestMs: 0 };
    return new Promise((resolve) => {
      const jobs = new scheduler.JobScheduler([job], () => now, {
        logger: createLogger('warn'),
        observer: {
          jobSliceRan: (_job, seconds) => {
            slices.count++;
            slices.longestMs = Math.max(slices.longestMs, seconds * 1000);
          },
          jobPassEnded: () => void jobs.stop().then(() => resolve(slices)),
          jobBehindSince: () => {},
        },
      });
      jobs.start();
    });
  }

  /** A pass the way the code under test runs it: the job's slices, or the synchronous call it had before. */
  const pass = (job, now, synchronous) =>
    measure(() => {
      if (sliced) return schedulerPass(job, now);
      synchronous();
      return undefined;
    });

  const f = ({ wall, blockMs, slices }) =>
    `wall ${wall.toFixed(0).padStart(6)} ms, event loop held up to ${blockMs.toFixed(0).padStart(6)} ms` +
    (slices ? ` (${slices.count} slices, the longest ${slices.longestMs.toFixed(0)} ms)` : '');
  out(`state ${dir} (${fleet.samples} samples), history ends ${new Date(fleet.endMs).toISOString()}`);
  for (let round = 1; round <= rounds; round++) {
    const start = fleet.endMs + (round - 1) * minute;
    const now = new Date(start + minute + 2_000);
    const newMinute = Array.from({ length: 6 }, (_, i) => start + i * 10_000);
    const stored = ingest(newMinute, now);
    const fold = await pass(services.rollups, now, () => foldAll(services, now));
    out(`round ${round}: fold of one new minute (${stored} samples)  ${f(fold)}`);
    const lateMinute = newMinute.map((ts) => ts - 6 * 3_600_000 + 5_000);
    const lateStored = ingest(lateMinute, now);
    const late = await pass(services.rollups, now, () => foldAll(services, now));
    out(`round ${round}: fold of a minute 6 h late (${lateStored} samples)  ${f(late)}`);
    const retention = await pass(services.retention, now, () => {
      services.rollups.expire(now.getTime());
      services.queries.expire(now);
    });
    out(`round ${round}: retention pass  ${f(retention)}`);
  }
  db.close();
} finally {
  rmSync(copy, { recursive: true, force: true });
}
