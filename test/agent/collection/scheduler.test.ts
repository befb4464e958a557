import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { waitUntil } from '../../helpers/wait-until.js';
import { Scheduler, type ScheduledTask, type Timers } from '../../../agent/collection/scheduler.js';
import { createLogger } from '../../../common/logger.js';

const logger = createLogger('silent');

/** Timers that only fire when told to, with a clock the test moves. */
class ManualTimers implements Timers {
  nowMs = 0;
  readonly pending = new Map<number, { callback: () => void; ms: number; atMs: number }>();
  #next = 1;

  setTimeout(callback: () => void, ms: number): unknown {
    const handle = this.#next++;
    this.pending.set(handle, { callback, ms, atMs: this.nowMs + ms });
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** Moves the clock to the earliest timer (plus `lateMs`, as a busy event loop would) and fires it. */
  fireNext(lateMs = 0): void {
    const [handle, timer] = [...this.pending].sort((a, b) => a[1].atMs - b[1].atMs)[0]!;
    this.pending.delete(handle);
    this.nowMs = Math.max(this.nowMs, timer.atMs + lateMs);
    timer.callback();
  }

  delays(): number[] {
    return [...this.pending.values()].map((timer) => timer.ms);
  }
}

function manualScheduler(timers: ManualTimers, random: () => number, runCycle = async () => undefined) {
  const scheduler = new Scheduler<ScheduledTask>({ runCycle, logger, random, timers, nowMs: () => timers.nowMs });
  return scheduler;
}

t.test('the first tick comes after a random phase within one interval', async (t) => {
  const timers = new ManualTimers();
  const randoms = [0, 0.5, 0.999999];
  const scheduler = manualScheduler(timers, () => randoms.shift()!);
  t.teardown(() => scheduler.stop());
  scheduler.update([
    { id: 'a', intervalMs: 60_000 },
    { id: 'b', intervalMs: 60_000 },
    { id: 'c', intervalMs: 10_000 },
  ]);
  t.same(timers.delays(), [0, 30_000, 9999.99]);
  for (const delay of timers.delays()) t.ok(delay >= 0 && delay < 60_000);
});

t.test('ticks keep a fixed rate, and a stalled process resumes at the next tick ahead', async (t) => {
  const timers = new ManualTimers();
  const runs: number[] = [];
  const scheduler = manualScheduler(timers, () => 0.1, async () => void runs.push(timers.nowMs));
  t.teardown(() => scheduler.stop());
  scheduler.update([{ id: 'a', intervalMs: 1000 }]);
  timers.fireNext();
  await sleep(0);
  t.same(timers.delays(), [1000]);
  timers.fireNext(30);
  await sleep(0);
  t.same(timers.delays(), [970], 'fired 30 ms late at 1130: the next one is still due at 2100, on the grid');
  timers.fireNext(2500);
  await sleep(0);
  t.same(timers.delays(), [500], 'after a stall of 2.5 intervals, the next tick is the next grid point ahead (5100)');
  t.same(runs, [100, 1130, 4600]);
});

t.test('a job never runs two cycles at once; stop() waits for the running one', async (t) => {
  let concurrent = 0;
  let maxConcurrent = 0;
  const scheduler = new Scheduler<ScheduledTask>({
    logger,
    random: () => 0,
    runCycle: async () => {
      concurrent += 1;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      await sleep(170);
      concurrent -= 1;
    },
  });
  scheduler.update([{ id: 'slow', intervalMs: 50 }]);
  await sleep(400);
  await scheduler.stop();
  const stats = scheduler.stats();
  t.same(stats, {}, 'a stopped scheduler holds no jobs');
  t.equal(maxConcurrent, 1, 'never two cycles of one job at once');
  t.equal(concurrent, 0, 'stop() waited for the running cycle');
});

t.test('skips and runs are reported per job', async (t) => {
  const scheduler = new Scheduler<ScheduledTask>({ logger, random: () => 0, runCycle: () => sleep(170) });
  t.teardown(() => scheduler.stop());
  scheduler.update([{ id: 'slow', intervalMs: 50 }]);
  await sleep(420);
  const { slow } = scheduler.stats();
  t.ok(slow!.runs >= 2 && slow!.runs <= 3, `runs ${slow!.runs}`);
  t.ok(slow!.skips >= 4, `skips ${slow!.skips}`);
});

t.test('every cycle gets a deadline: 80% of its interval, at most maxDeadlineMs', async (t) => {
  const abortedAfter: Record<string, number> = {};
  const runCycle = (job: ScheduledTask, signal: AbortSignal) => {
    const started = performance.now();
    return new Promise<void>((_resolve, reject) => {
      signal.addEventListener('abort', () => {
        abortedAfter[job.id] ??= performance.now() - started;
        reject(signal.reason);
      });
    });
  };
  const scheduler = new Scheduler<ScheduledTask>({ logger, random: () => 0, runCycle, maxDeadlineMs: 120 });
  scheduler.update([
    { id: 'short', intervalMs: 100 },
    { id: 'long', intervalMs: 10_000 },
  ]);
  await sleep(300);
  await scheduler.stop();
  // Lower bounds tell the deadlines apart; upper bounds are loose because a loaded machine fires timers late.
  t.ok(abortedAfter.short! >= 75 && abortedAfter.short! < 300, `short aborted after ${abortedAfter.short} ms (80 ms)`);
  t.ok(abortedAfter.long! >= 115 && abortedAfter.long! < 400, `long aborted after ${abortedAfter.long} ms (cap 120 ms)`);
});

t.test('timeouts and failures are counted apart', async (t) => {
  const scheduler = new Scheduler<ScheduledTask>({
    logger,
    random: () => 0,
    runCycle: async (job, signal) => {
      if (job.id === 'failing') throw new Error('boom');
      await sleep(1000, undefined, { signal });
    },
  });
  t.teardown(() => scheduler.stop());
  scheduler.update([
    { id: 'failing', intervalMs: 100 },
    { id: 'hanging', intervalMs: 100 },
  ]);
  await waitUntil('two failures and two timeouts', async () => {
    const stats = scheduler.stats();
    return stats.failing!.failures >= 2 && stats.hanging!.timeouts >= 2;
  }, 5000);
  const stats = scheduler.stats();
  t.equal(stats.failing!.timeouts, 0, 'a thrown error is not a timeout');
  t.equal(stats.hanging!.failures, 0, 'a timeout is not a failure');
});

t.test('a cycle that honours its deadline and returns what it has is still counted as a timeout', async (t) => {
  const scheduler = new Scheduler<ScheduledTask>({
    logger,
    random: () => 0,
    // As the agent's collection does: on abort, the remaining work is given up and the cycle resolves.
    runCycle: (_job, signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
  });
  t.teardown(() => scheduler.stop());
  scheduler.update([{ id: 'partial', intervalMs: 100 }]);
  await waitUntil('two timeouts', async () => scheduler.stats().partial!.timeouts >= 2, 5000);
  t.equal(scheduler.stats().partial!.failures, 0);
});

t.test('a new job list adds, removes and re-times jobs without touching the others', async (t) => {
  const timers = new ManualTimers();
  const scheduler = manualScheduler(timers, () => 0.5);
  t.teardown(() => scheduler.stop());
  scheduler.update([
    { id: 'a', intervalMs: 1000 },
    { id: 'b', intervalMs: 1000 },
    { id: 'c', intervalMs: 1000 },
  ]);
  const before = new Map(timers.pending);
  const [handleA, handleB, handleC] = [...before.keys()];
  scheduler.update([
    { id: 'a', intervalMs: 1000 },
    { id: 'c', intervalMs: 4000 },
    { id: 'd', intervalMs: 2000 },
  ]);
  t.ok(timers.pending.has(handleA!), 'a is untouched: same timer, same phase');
  t.notOk(timers.pending.has(handleB!), 'b is gone');
  t.notOk(timers.pending.has(handleC!), 'c was re-timed');
  t.same(timers.delays().sort((x, y) => x - y), [500, 1000, 2000], 'a at its old phase; d and c with a fresh phase in their new interval');
  t.same(Object.keys(scheduler.stats()).sort(), ['a', 'c', 'd']);
});

t.test('a removed job’s running cycle still finishes before stop() returns', async (t) => {
  let finished = false;
  const scheduler = new Scheduler<ScheduledTask>({
    logger,
    random: () => 0,
    runCycle: async () => {
      await sleep(100);
      finished = true;
    },
  });
  scheduler.update([{ id: 'a', intervalMs: 1000 }]);
  await sleep(20);
  scheduler.update([]);
  await scheduler.stop();
  t.equal(finished, true);
});
