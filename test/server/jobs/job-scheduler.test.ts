import { setImmediate as turn } from 'node:timers/promises';
import t from 'tap';
import type { BackgroundJob } from '../../../server/jobs/background-job.js';
import { JobScheduler, type JobObserver } from '../../../server/jobs/job-scheduler.js';
import { LoopTurns } from '../../../server/jobs/loop-turns.js';
import { captureLogger } from '../../helpers/capture-logger.js';
import { waitUntil } from '../../helpers/wait-until.js';

/** A job whose passes take `slicesPerPass` slices; what it was given is kept. */
function countingJob(name: string, slicesPerPass: number, periodMs = 60_000) {
  const budgets: number[] = [];
  let passes = 0;
  let sliceInPass = 0;
  const job: BackgroundJob & { budgets: number[]; passes: () => number; fail?: boolean } = {
    name,
    periodMs,
    budgets,
    passes: () => passes,
    slice(_now, budgetMs) {
      budgets.push(budgetMs);
      if (job.fail) {
        job.fail = false;
        sliceInPass = 0;
        throw new Error('slice failed');
      }
      if (++sliceInPass < slicesPerPass) return true;
      sliceInPass = 0;
      passes++;
      return false;
    },
  };
  return job;
}

function recordingObserver() {
  const events: string[] = [];
  const behind = new Map<string, number | null>();
  const observer: JobObserver = {
    jobSliceRan: (job) => events.push(`slice ${job}`),
    jobPassEnded: (job, _seconds, failed) => events.push(`pass ${job}${failed ? ' failed' : ''}`),
    jobBehindSince: (job, since) => behind.set(job, since),
  };
  return { events, behind, observer };
}

t.test('a pass runs at start, one slice per event-loop turn, one job after the other', async (t) => {
  const { logger } = captureLogger('warn');
  const { events, behind, observer } = recordingObserver();
  const rollups = countingJob('rollups', 3);
  const retention = countingJob('retention', 2);
  const now = new Date('2026-11-22T12:00:00Z');
  const scheduler = new JobScheduler([rollups, retention], () => now, { logger, observer, turns: new LoopTurns(), sliceBudgetMs: 7 });
  t.teardown(() => scheduler.stop());
  scheduler.start();
  t.equal(behind.get('rollups'), now.getTime(), 'both due from the start');
  t.equal(behind.get('retention'), now.getTime());
  t.same(events, [], 'nothing runs inside start()');
  let turns = 0;
  while (events.length < 7) {
    await turn();
    turns++;
  }
  t.ok(turns >= 5, `slices are spread over event-loop turns (${turns} turns for 5 slices)`);
  t.same(events, ['slice rollups', 'slice rollups', 'slice rollups', 'pass rollups', 'slice retention', 'slice retention', 'pass retention']);
  t.same(rollups.budgets, [7, 7, 7], 'each slice gets the budget');
  t.equal(behind.get('rollups'), null, 'caught up');
  t.equal(behind.get('retention'), null);
});

t.test('a failing slice ends its pass, is logged, and the next pass runs; stop waits and ends the passes', async (t) => {
  const captured = captureLogger('warn');
  const { events, observer } = recordingObserver();
  const job = countingJob('flaky', 2, 20);
  job.fail = true;
  const scheduler = new JobScheduler([job], () => new Date(), { logger: captured.logger, observer, turns: new LoopTurns() });
  t.teardown(() => scheduler.stop());
  scheduler.start();
  await waitUntil('two good passes', async () => job.passes() >= 2);
  t.equal(events[0], 'slice flaky');
  t.equal(events[1], 'pass flaky failed');
  t.match(captured.lines, [{ msg: 'background job failed', job: 'flaky', err: { message: 'slice failed' } }]);
  await scheduler.stop();
  const stoppedAt = job.budgets.length;
  await new Promise((resolve) => setTimeout(resolve, 80));
  t.equal(job.budgets.length, stoppedAt, 'no slice after stop');
});

t.test('a pass still running when it falls due again is not queued twice', async (t) => {
  const { logger } = captureLogger('warn');
  const { events, behind, observer } = recordingObserver();
  let release = false;
  const slow: BackgroundJob = { name: 'slow', periodMs: 5, slice: () => !release };
  let clock = 1_000;
  const scheduler = new JobScheduler([slow], () => new Date(clock++), { logger, observer, turns: new LoopTurns() });
  t.teardown(() => scheduler.stop());
  scheduler.start();
  const dueAt = behind.get('slow');
  await new Promise((resolve) => setTimeout(resolve, 60));
  t.notOk(events.includes('pass slow'), 'the pass is still running');
  t.equal(behind.get('slow'), dueAt, 'and behind since it first fell due: not queued again meanwhile');
  release = true;
  await waitUntil('the pass ends', async () => events.includes('pass slow'));
});

t.test('a slice that hands its work to another thread: its slice time is what it held the loop, its pass waits for the work', async (t) => {
  const captured = captureLogger('warn');
  const { logger } = captured;
  const sliceSeconds: number[] = [];
  const passSeconds: number[] = [];
  const passes: boolean[] = [];
  const observer: JobObserver = {
    jobSliceRan: (_job, seconds) => sliceSeconds.push(seconds),
    jobPassEnded: (_job, seconds, failed) => {
      passSeconds.push(seconds);
      passes.push(failed);
    },
    jobBehindSince: () => undefined,
  };
  let calls = 0;
  const offLoop: BackgroundJob = {
    name: 'off_loop',
    periodMs: 60_000,
    slice: () => (++calls === 1 ? new Promise((resolve) => setTimeout(() => resolve(false), 100)) : Promise.reject(new Error('worker gone'))),
  };
  const scheduler = new JobScheduler([offLoop], () => new Date(), { logger, observer, turns: new LoopTurns() });
  t.teardown(() => scheduler.stop());
  scheduler.start();
  await waitUntil('the first pass', async () => passes.length === 1);
  t.ok(passSeconds[0]! >= 0.09, `the pass lasted until the work ended (${passSeconds[0]} s)`);
  t.ok(sliceSeconds[0]! < passSeconds[0]!, `the slice held the loop ${sliceSeconds[0]} s`);
  await scheduler.stop();
  const second = new JobScheduler([offLoop], () => new Date(), { logger, observer, turns: new LoopTurns() });
  second.start();
  await waitUntil('the second pass', async () => passes.length === 2);
  await second.stop();
  t.same(passes, [false, true], 'a rejected slice fails its pass');
  t.match(captured.lines, [{ msg: 'background job failed', job: 'off_loop', err: { message: 'worker gone' } }]);
});
