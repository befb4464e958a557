import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Assignments } from '../../common/agent-protocol/assignments.js';
import type { AssignmentSource } from './assignment.js';
import { defaultBackoff, fullJitterDelay, type BackoffPolicy } from '../delivery/backoff.js';
import { AuthRefusedError } from '../delivery/delivery-errors.js';

export interface AssignmentPollerOptions {
  source: AssignmentSource;
  logger: Logger;
  /** Called with every list fetched; the caller applies what changed. */
  onAssignments: (assignments: Assignments) => void;
  /** Time between fetches once one succeeded. */
  refreshMs?: number;
  backoff?: BackoffPolicy;
  random?: () => number;
}

/**
 * Fetches the agent's assignments, retrying with backoff while the server cannot be reached
 * (the last list fetched stays in force meanwhile), then refreshes them at a fixed period.
 */
export class AssignmentPoller {
  readonly #options: Required<Omit<AssignmentPollerOptions, 'logger' | 'source' | 'onAssignments'>> & AssignmentPollerOptions;
  readonly #stopping = new AbortController();
  #wait: AbortController | undefined;
  #running: Promise<void> | undefined;
  #fetched = 0;

  constructor(options: AssignmentPollerOptions) {
    this.#options = { refreshMs: 60_000, backoff: defaultBackoff, random: Math.random, ...options };
  }

  start(): void {
    this.#running ??= this.#run();
  }

  /** Fetch now (SIGHUP), instead of at the next refresh or retry. */
  refresh(): void {
    this.#wait?.abort();
  }

  /** How many lists were fetched so far. */
  fetchedCount(): number {
    return this.#fetched;
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    await this.#running;
  }

  async #run(): Promise<void> {
    const { source, logger, onAssignments, refreshMs, backoff, random } = this.#options;
    let attempt = 0;
    let lastError: string | undefined;
    while (!this.#stopping.signal.aborted) {
      let delayMs: number;
      try {
        const assignments = await source.fetchAssignments(this.#stopping.signal);
        this.#fetched += 1;
        if (lastError !== undefined) logger.info({ failedAttempts: attempt }, 'assignments fetched again');
        attempt = 0;
        lastError = undefined;
        onAssignments(assignments);
        delayMs = refreshMs;
      } catch (error) {
        if (this.#stopping.signal.aborted) break;
        const message = error instanceof Error ? error.message : String(error);
        const auth = error instanceof AuthRefusedError;
        delayMs = auth ? backoff.capMs : fullJitterDelay(attempt, backoff, random);
        const fields = { error: message, attempt: attempt + 1, retryInMs: delayMs };
        if (auth) logger.error(fields, 'the server refused the agent key; cannot fetch assignments');
        else if (message === lastError) logger.debug(fields, 'cannot fetch assignments; retrying');
        else logger.warn(fields, 'cannot fetch assignments; retrying');
        lastError = message;
        attempt += 1;
      }
      await this.#pause(delayMs);
    }
  }

  async #pause(ms: number): Promise<void> {
    const wait = new AbortController();
    this.#wait = wait;
    try {
      await sleep(ms, undefined, { signal: AbortSignal.any([wait.signal, this.#stopping.signal]) });
    } catch {
      // Woken by refresh() or stop().
    } finally {
      this.#wait = undefined;
    }
  }
}
