import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { BackgroundJob } from './background-job.js';
import type { LoopTurns } from './loop-turns.js';

/** What the scheduler tells about the jobs it runs (the server's `/metrics`). */
export interface JobObserver {
  /** One slice ran for this long. */
  jobSliceRan(job: string, seconds: number): void;
  /** A pass ended: its wall time from its first slice to its last, and whether a slice threw. */
  jobPassEnded(job: string, seconds: number, failed: boolean): void;
  /** Since when a pass of the job has been due and not finished; null once it has. */
  jobBehindSince(job: string, sinceMs: number | null): void;
}

export interface JobSchedulerOptions {
  logger: Logger;
  observer: JobObserver;
  /** The turns of the loop its slices share with every other sliced work (ingest): one slice a turn. */
  turns: LoopTurns;
  /** How long one slice may run before it yields to the event loop (a unit of work begun still ends). */
  sliceBudgetMs?: number;
}

const defaultSliceBudgetMs = 20;

/**
 * The one place background jobs are scheduled: a pass of each job when the scheduler starts and
 * then every `periodMs`, one pass at a time, each slice in an event-loop turn of its own, shared
 * with no other slice (LoopTurns), so that requests are served between slices. A pass still
 * running when its next one falls due is not started twice; a slice that throws ends its pass,
 * logged, and the next pass starts on time.
 */
export class JobScheduler {
  readonly #queue: { job: BackgroundJob; dueAtMs: number }[] = [];
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #budgetMs: number;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(
    private readonly jobs: readonly BackgroundJob[],
    private readonly now: () => Date,
    private readonly options: JobSchedulerOptions,
  ) {
    this.#budgetMs = options.sliceBudgetMs ?? defaultSliceBudgetMs;
  }

  start(): void {
    for (const job of this.jobs) {
      this.#due(job);
      const timer = setInterval(() => this.#due(job), job.periodMs);
      timer.unref();
      this.#timers.push(timer);
    }
  }

  /** No pass starts any more; resolves once the slice under way (if any) has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#timers) clearInterval(timer);
    await this.#running;
  }

  #due(job: BackgroundJob): void {
    if (this.#stopped || this.#queue.some((entry) => entry.job === job)) return;
    const dueAtMs = this.now().getTime();
    this.#queue.push({ job, dueAtMs });
    this.options.observer.jobBehindSince(job.name, dueAtMs);
    this.#running ??= this.#drain().finally(() => {
      this.#running = undefined;
    });
  }

  async #drain(): Promise<void> {
    while (!this.#stopped && this.#queue.length > 0) {
      const { job } = this.#queue[0]!;
      await this.#pass(job);
      this.#queue.shift();
      if (!this.#stopped) this.options.observer.jobBehindSince(job.name, null);
    }
  }

  async #pass(job: BackgroundJob): Promise<void> {
    const { observer, logger } = this.options;
    const started = performance.now();
    let more = true;
    let failed = false;
    while (more && !this.#stopped) {
      await this.options.turns.next();
      const sliceStarted = performance.now();
      let outcome: boolean | Promise<boolean>;
      try {
        outcome = job.slice(this.now(), this.#budgetMs);
      } catch (error) {
        outcome = Promise.reject(error as Error);
      }
      // How long the slice held the event loop: work it hands to a worker thread goes on off it.
      observer.jobSliceRan(job.name, (performance.now() - sliceStarted) / 1000);
      try {
        more = await outcome;
      } catch (error) {
        logger.error({ err: error, job: job.name }, 'background job failed');
        failed = true;
        more = false;
      }
    }
    if (!more) observer.jobPassEnded(job.name, (performance.now() - started) / 1000, failed);
  }
}
