import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Assignment } from '../assignments/assignment.js';
import type { JobResult } from '../../common/agent-protocol/job-results.js';
import { agentJob, type AgentJob } from '../../common/agent-protocol/optimization-jobs.js';
import { defaultAdvisorOptions, type AdvisorOptions } from './advisor-options.js';
import { runJob as defaultRunJob, type RunJobContext } from './run-job.js';

/**
 * Where jobs come from and results go: the server over HTTP (HttpJobSource), or in-process for
 * the server's embedded agent (server/optimizations/embedded-job-source.ts).
 */
export interface JobSource {
  /** Leases the open jobs of the databases this agent monitors; they are validated here. */
  fetchJobs(signal?: AbortSignal): Promise<unknown[]>;
  reportResult(jobId: string, result: JobResult, signal?: AbortSignal): Promise<void>;
}

/** The server will never take this result (the lease is gone, or the body is refused): do not retry it. */
export class ResultRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResultRefusedError';
  }
}

export interface JobRunnerOptions {
  source: JobSource;
  logger: Logger;
  advisor?: Partial<AdvisorOptions>;
  /** How often the loop asks for jobs. */
  pollIntervalMs?: number;
  /** Databases configured on this host: their connection settings win over those a job carries. */
  localDatabases?: readonly Assignment[];
  /** Runs one job; tests pass fakes. */
  runJob?: (job: AgentJob, ctx: RunJobContext) => Promise<JobResult>;
}

const maxBackoffMs = 300_000;

/**
 * Polls for optimization jobs and runs them: analysis and apply, one at a time per database (a
 * long index build on one database does not hold up the others). A result the server did not
 * take is kept and offered again on the next poll; the server's lease makes a lost one expire.
 */
export class JobRunner {
  readonly #options: JobRunnerOptions;
  readonly #advisor: AdvisorOptions;
  readonly #abort = new AbortController();
  readonly #inFlight = new Set<string>();
  readonly #chains = new Map<string, Promise<void>>();
  readonly #unreported: Array<{ jobId: string; result: JobResult }> = [];
  #loop: Promise<void> | undefined;
  #lastError: string | undefined;

  constructor(options: JobRunnerOptions) {
    this.#options = options;
    this.#advisor = { ...defaultAdvisorOptions, ...options.advisor };
  }

  /** One poll: offers unreported results again, fetches jobs, runs them and reports. Resolves when all are done; returns how many ran. */
  async runOnce(): Promise<number> {
    const started = await this.#poll();
    await Promise.all(started);
    return started.length;
  }

  /** Polls every pollIntervalMs (backing off while the server fails) until stop(). */
  start(): void {
    if (this.#loop !== undefined) return;
    const interval = this.#options.pollIntervalMs ?? 15_000;
    let delay = interval;
    this.#loop = (async () => {
      while (!this.#abort.signal.aborted) {
        try {
          await this.#poll();
          delay = interval;
        } catch {
          delay = Math.min(maxBackoffMs, delay * 2);
        }
        // sleep() removes its abort listener when the delay ends; a listener added per poll would pile up on the one signal.
        await sleep(delay, undefined, { signal: this.#abort.signal }).catch(() => undefined);
      }
    })();
  }

  /** Stops polling and aborts the jobs in flight (their connections close; an index build is cancelled, and its leftover dropped by the next apply). */
  async stop(): Promise<void> {
    this.#abort.abort(new Error('the agent is stopping'));
    await this.#loop;
    await Promise.allSettled([...this.#chains.values()]);
  }

  async #poll(): Promise<Promise<void>[]> {
    const { source, logger } = this.#options;
    const signal = this.#abort.signal;
    await this.#reportPending();
    let raw: unknown[];
    try {
      raw = await source.fetchJobs(signal);
      if (this.#lastError !== undefined) logger.info('fetching jobs works again');
      this.#lastError = undefined;
    } catch (error) {
      const message = (error as Error).message;
      if (message !== this.#lastError) logger.warn({ error: message }, 'fetching jobs failed');
      this.#lastError = message;
      throw error;
    }
    const started: Promise<void>[] = [];
    for (const item of raw) {
      const parsed = agentJob.safeParse(item);
      if (!parsed.success) {
        logger.warn({ issue: parsed.error.issues[0]?.message }, 'the server sent an unreadable job; skipped');
        continue;
      }
      const job = parsed.data;
      if (this.#inFlight.has(job.id)) continue;
      this.#inFlight.add(job.id);
      // One job at a time per database, in the order the server gave them.
      const previous = this.#chains.get(job.database.id) ?? Promise.resolve();
      const run = previous.then(() => this.#run(job));
      const chain = run.finally(() => {
        this.#inFlight.delete(job.id);
        if (this.#chains.get(job.database.id) === chain) this.#chains.delete(job.database.id);
      });
      this.#chains.set(job.database.id, chain);
      started.push(chain);
    }
    return started;
  }

  async #run(job: AgentJob): Promise<void> {
    const { logger } = this.#options;
    const local = this.#options.localDatabases?.find((database) => database.id === job.database.id);
    logger.info({ jobId: job.id, kind: job.kind, databaseId: job.database.id, optimizationId: job.optimization_id }, 'job started');
    const result = await (this.#options.runJob ?? defaultRunJob)(job, {
      options: this.#advisor,
      logger,
      signal: this.#abort.signal,
      ...(local && { connection: local.connection }),
    });
    if (this.#abort.signal.aborted) return;
    logger.info({ jobId: job.id, kind: job.kind, outcome: result.outcome, error: result.error }, 'job finished');
    this.#unreported.push({ jobId: job.id, result });
    await this.#reportPending();
  }

  async #reportPending(): Promise<void> {
    const { source, logger } = this.#options;
    for (const entry of [...this.#unreported]) {
      try {
        await source.reportResult(entry.jobId, entry.result, this.#abort.signal);
        this.#forget(entry);
      } catch (error) {
        if (error instanceof ResultRefusedError) {
          this.#forget(entry);
          logger.warn({ jobId: entry.jobId, error: error.message }, 'the server refused the job result; dropped');
        } else {
          logger.warn({ jobId: entry.jobId, error: (error as Error).message }, 'reporting a job result failed; it is offered again on the next poll');
        }
      }
    }
  }

  #forget(entry: { jobId: string; result: JobResult }): void {
    const at = this.#unreported.indexOf(entry);
    if (at >= 0) this.#unreported.splice(at, 1);
  }
}
