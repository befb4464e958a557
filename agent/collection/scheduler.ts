import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';

/** What the scheduler runs: one per database. The job object is handed back to every cycle. */
export interface ScheduledJob {
  id: string;
  intervalMs: number;
}

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface SchedulerOptions<J extends ScheduledJob> {
  /** One cycle of one job; it should give up when `signal` aborts (the cycle's deadline). */
  runCycle: (job: J, signal: AbortSignal) => Promise<void>;
  logger: Logger;
  /** A cycle's deadline is 80% of its interval, and never more than this. */
  maxDeadlineMs?: number;
  random?: () => number;
  timers?: Timers;
  /** Monotonic milliseconds. */
  nowMs?: () => number;
}

export interface JobStats {
  /** Cycles started. */
  runs: number;
  /** Ticks that found the previous cycle still running. */
  skips: number;
  failures: number;
  /** Cycles that ran past their deadline. */
  timeouts: number;
  lastDurationMs: number | null;
  running: boolean;
}

interface Entry<J> {
  job: J;
  handle: unknown;
  nextAtMs: number;
  running: Promise<void> | undefined;
  stats: JobStats;
}

const defaultTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Runs every job at its own interval, at a fixed rate from a random phase, so databases
 * assigned together do not all collect at the same instant. A job never overlaps itself: a tick
 * that finds the previous cycle still running is skipped and counted. Every cycle has a
 * deadline by AbortSignal. `update()` adds, removes and re-times jobs without touching the rest.
 */
export class Scheduler<J extends ScheduledJob> {
  readonly #entries = new Map<string, Entry<J>>();
  /** Cycles in flight, removed jobs' included, so stop() can wait for all of them. */
  readonly #inFlight = new Set<Promise<void>>();
  readonly #options: Required<SchedulerOptions<J>>;
  #stopped = false;

  constructor(options: SchedulerOptions<J>) {
    this.#options = {
      maxDeadlineMs: 30_000,
      random: Math.random,
      timers: defaultTimers,
      nowMs: () => performance.now(),
      ...options,
    };
  }

  /** Makes the scheduled jobs exactly `jobs`; jobs whose interval is unchanged keep their phase. */
  update(jobs: readonly J[]): void {
    if (this.#stopped) return;
    const wanted = new Map(jobs.map((job) => [job.id, job]));
    for (const [id, entry] of this.#entries) {
      if (wanted.has(id)) continue;
      this.#options.timers.clearTimeout(entry.handle);
      this.#entries.delete(id);
      this.#options.logger.debug({ job: id }, 'job removed');
    }
    for (const job of wanted.values()) {
      if (!(job.intervalMs > 0)) throw new RangeError(`job ${job.id}: interval must be positive, got ${job.intervalMs}`);
      const entry = this.#entries.get(job.id);
      if (entry === undefined) {
        this.#add(job);
      } else if (entry.job.intervalMs !== job.intervalMs) {
        this.#options.timers.clearTimeout(entry.handle);
        entry.job = job;
        this.#arm(entry, this.#options.random() * job.intervalMs);
      } else {
        entry.job = job;
      }
    }
  }

  stats(): Record<string, JobStats> {
    return Object.fromEntries([...this.#entries].map(([id, entry]) => [id, { ...entry.stats }]));
  }

  /** No more ticks; resolves once every running cycle has finished. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const entry of this.#entries.values()) this.#options.timers.clearTimeout(entry.handle);
    this.#entries.clear();
    await Promise.allSettled([...this.#inFlight]);
  }

  #add(job: J): void {
    const entry: Entry<J> = {
      job,
      handle: undefined,
      nextAtMs: 0,
      running: undefined,
      stats: { runs: 0, skips: 0, failures: 0, timeouts: 0, lastDurationMs: null, running: false },
    };
    this.#entries.set(job.id, entry);
    this.#arm(entry, this.#options.random() * job.intervalMs);
    this.#options.logger.debug({ job: job.id, intervalMs: job.intervalMs }, 'job added');
  }

  #arm(entry: Entry<J>, delayMs: number): void {
    entry.nextAtMs = this.#options.nowMs() + delayMs;
    entry.handle = this.#options.timers.setTimeout(() => this.#tick(entry), delayMs);
  }

  #tick(entry: Entry<J>): void {
    if (this.#stopped || this.#entries.get(entry.job.id) !== entry) return;
    const { intervalMs } = entry.job;
    const nowMs = this.#options.nowMs();
    // Fixed rate: the next tick is one interval after this one was due, not after it ran;
    // if the process stalled past several ticks, continue from the next one still ahead.
    let nextAtMs = entry.nextAtMs + intervalMs;
    if (nextAtMs <= nowMs) nextAtMs = nowMs + intervalMs - ((nowMs - entry.nextAtMs) % intervalMs);
    entry.nextAtMs = nextAtMs;
    entry.handle = this.#options.timers.setTimeout(() => this.#tick(entry), nextAtMs - nowMs);

    if (entry.running !== undefined) {
      entry.stats.skips += 1;
      this.#options.logger.warn(
        { job: entry.job.id, skips: entry.stats.skips },
        'previous cycle still running; this one is skipped',
      );
      return;
    }
    this.#start(entry);
  }

  #start(entry: Entry<J>): void {
    const deadlineMs = cycleDeadlineMs(entry.job.intervalMs, this.#options.maxDeadlineMs);
    const startedMs = this.#options.nowMs();
    entry.stats.runs += 1;
    entry.stats.running = true;
    // .finally() always runs later than this method, so `running` is assigned by then.
    const running = this.#cycle(entry.job, entry.stats, deadlineMs).finally(() => {
      entry.stats.lastDurationMs = this.#options.nowMs() - startedMs;
      entry.stats.running = false;
      entry.running = undefined;
      this.#inFlight.delete(running);
    });
    entry.running = running;
    this.#inFlight.add(running);
  }

  async #cycle(job: J, stats: JobStats, deadlineMs: number): Promise<void> {
    // Not AbortSignal.timeout(): its timer is unref'd, and a stop() waiting on a cycle that only
    // its deadline can end must keep the process alive until it does.
    const deadline = new AbortController();
    const { signal } = deadline;
    const timer = setTimeout(() => deadline.abort(new DeadlineExceededError(deadlineMs)), deadlineMs);
    let failure: unknown;
    try {
      await this.#options.runCycle(job, signal);
    } catch (error) {
      failure = error ?? new Error('cycle failed');
    } finally {
      clearTimeout(timer);
    }
    // A cycle that honoured its deadline may still end normally (with what it collected in time).
    if (signal.aborted) {
      stats.timeouts += 1;
      this.#options.logger.warn({ job: job.id, deadlineMs }, 'cycle exceeded its deadline');
    } else if (failure !== undefined) {
      stats.failures += 1;
      const message = failure instanceof Error ? failure.message : String(failure);
      this.#options.logger.warn({ job: job.id, error: message }, 'cycle failed');
    }
  }
}

/** The deadline of one cycle: 80% of its interval, and never more than `maxDeadlineMs`. */
export function cycleDeadlineMs(intervalMs: number, maxDeadlineMs: number): number {
  return Math.min(intervalMs * 0.8, maxDeadlineMs);
}

/** The reason a cycle's signal aborts with when its deadline passes. */
export class DeadlineExceededError extends Error {
  constructor(readonly deadlineMs: number) {
    super(`cycle deadline of ${deadlineMs} ms exceeded`);
    this.name = 'TimeoutError';
  }
}
