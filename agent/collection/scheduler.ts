import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';

/** What the scheduler runs: one task per database. The task object is handed back to every cycle. */
export interface ScheduledTask {
  id: string;
  intervalMs: number;
}

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface SchedulerOptions<T extends ScheduledTask> {
  /** One cycle of one task; it should give up when `signal` aborts (the cycle's deadline). */
  runCycle: (task: T, signal: AbortSignal) => Promise<void>;
  logger: Logger;
  /** A cycle's deadline is 80% of its interval, and never more than this. */
  maxDeadlineMs?: number;
  random?: () => number;
  timers?: Timers;
  /** Monotonic milliseconds. */
  nowMs?: () => number;
}

export interface TaskStats {
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

interface Entry<T> {
  task: T;
  handle: unknown;
  nextAtMs: number;
  running: Promise<void> | undefined;
  stats: TaskStats;
}

const defaultTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Runs every task at its own interval, at a fixed rate from a random phase, so databases
 * assigned together do not all collect at the same instant. A task never overlaps itself: a tick
 * that finds the previous cycle still running is skipped and counted. Every cycle has a
 * deadline by AbortSignal. `update()` adds, removes and re-times tasks without touching the rest.
 */
export class Scheduler<T extends ScheduledTask> {
  readonly #entries = new Map<string, Entry<T>>();
  /** Cycles in flight, removed tasks' included, so stop() can wait for all of them. */
  readonly #inFlight = new Set<Promise<void>>();
  readonly #options: Required<SchedulerOptions<T>>;
  #stopped = false;

  constructor(options: SchedulerOptions<T>) {
    this.#options = {
      maxDeadlineMs: 30_000,
      random: Math.random,
      timers: defaultTimers,
      nowMs: () => performance.now(),
      ...options,
    };
  }

  /** Makes the scheduled tasks exactly `tasks`; tasks whose interval is unchanged keep their phase. */
  update(tasks: readonly T[]): void {
    if (this.#stopped) return;
    const wanted = new Map(tasks.map((task) => [task.id, task]));
    for (const [id, entry] of this.#entries) {
      if (wanted.has(id)) continue;
      this.#options.timers.clearTimeout(entry.handle);
      this.#entries.delete(id);
      this.#options.logger.debug({ task: id }, 'task removed');
    }
    for (const task of wanted.values()) {
      if (!(task.intervalMs > 0)) throw new RangeError(`task ${task.id}: interval must be positive, got ${task.intervalMs}`);
      const entry = this.#entries.get(task.id);
      if (entry === undefined) {
        this.#add(task);
      } else if (entry.task.intervalMs !== task.intervalMs) {
        this.#options.timers.clearTimeout(entry.handle);
        entry.task = task;
        this.#arm(entry, this.#options.random() * task.intervalMs);
      } else {
        entry.task = task;
      }
    }
  }

  stats(): Record<string, TaskStats> {
    return Object.fromEntries([...this.#entries].map(([id, entry]) => [id, { ...entry.stats }]));
  }

  /** No more ticks; resolves once every running cycle has finished. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const entry of this.#entries.values()) this.#options.timers.clearTimeout(entry.handle);
    this.#entries.clear();
    await Promise.allSettled([...this.#inFlight]);
  }

  #add(task: T): void {
    const entry: Entry<T> = {
      task,
      handle: undefined,
      nextAtMs: 0,
      running: undefined,
      stats: { runs: 0, skips: 0, failures: 0, timeouts: 0, lastDurationMs: null, running: false },
    };
    this.#entries.set(task.id, entry);
    this.#arm(entry, this.#options.random() * task.intervalMs);
    this.#options.logger.debug({ task: task.id, intervalMs: task.intervalMs }, 'task added');
  }

  #arm(entry: Entry<T>, delayMs: number): void {
    entry.nextAtMs = this.#options.nowMs() + delayMs;
    entry.handle = this.#options.timers.setTimeout(() => this.#tick(entry), delayMs);
  }

  #tick(entry: Entry<T>): void {
    if (this.#stopped || this.#entries.get(entry.task.id) !== entry) return;
    const { intervalMs } = entry.task;
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
        { task: entry.task.id, skips: entry.stats.skips },
        'previous cycle still running; this one is skipped',
      );
      return;
    }
    this.#start(entry);
  }

  #start(entry: Entry<T>): void {
    const deadlineMs = cycleDeadlineMs(entry.task.intervalMs, this.#options.maxDeadlineMs);
    const startedMs = this.#options.nowMs();
    entry.stats.runs += 1;
    entry.stats.running = true;
    // .finally() always runs later than this method, so `running` is assigned by then.
    const running = this.#cycle(entry.task, entry.stats, deadlineMs).finally(() => {
      entry.stats.lastDurationMs = this.#options.nowMs() - startedMs;
      entry.stats.running = false;
      entry.running = undefined;
      this.#inFlight.delete(running);
    });
    entry.running = running;
    this.#inFlight.add(running);
  }

  async #cycle(task: T, stats: TaskStats, deadlineMs: number): Promise<void> {
    // Not AbortSignal.timeout(): its timer is unref'd, and a stop() waiting on a cycle that only
    // its deadline can end must keep the process alive until it does.
    const deadline = new AbortController();
    const { signal } = deadline;
    const timer = setTimeout(() => deadline.abort(new DeadlineExceededError(deadlineMs)), deadlineMs);
    let failure: unknown;
    try {
      await this.#options.runCycle(task, signal);
    } catch (error) {
      failure = error ?? new Error('cycle failed');
    } finally {
      clearTimeout(timer);
    }
    // A cycle that honoured its deadline may still end normally (with what it collected in time).
    if (signal.aborted) {
      stats.timeouts += 1;
      this.#options.logger.warn({ task: task.id, deadlineMs }, 'cycle exceeded its deadline');
    } else if (failure !== undefined) {
      stats.failures += 1;
      const message = failure instanceof Error ? failure.message : String(failure);
      this.#options.logger.warn({ task: task.id, error: message }, 'cycle failed');
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
