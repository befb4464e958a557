import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { maxBatchSamples, maxSpoolAgeSeconds } from '../../common/agent-protocol/limits.js';
import { defaultBackoff, fullJitterDelay, type BackoffPolicy } from './backoff.js';
import { AuthRefusedError, RejectedBatchError, RetryableError } from './delivery-errors.js';
import type { SendLimits, Spool } from './spool.js';
import type { Transport } from './transport.js';

export interface PusherOptions {
  spool: Spool;
  transport: Transport;
  logger: Logger;
  backoff?: BackoffPolicy;
  /** The server's limits on one batch: the protocol's samples per batch; bytes well under its default 1 MiB body limit. */
  limits?: SendLimits;
  /** A Retry-After beyond this is cut to it, so one odd header cannot park delivery for days. */
  maxRetryAfterMs?: number;
  random?: () => number;
  now?: () => Date;
}

export interface PusherStats {
  sentBatches: number;
  sentSamples: number;
  /** Acknowledged as already stored: a resend after a lost answer or a crash. */
  duplicateBatches: number;
  /** Samples the server acknowledged but did not store (unknown database, say). */
  serverRejectedSamples: number;
  /** Batches the server refused as malformed and that were removed from the spool. */
  refusedBatches: number;
  failures: number;
  consecutiveFailures: number;
  lastError: string | null;
  lastErrorAt: string | null;
  lastSuccessAt: string | null;
}

export const defaultSendLimits: SendLimits = Object.freeze({ maxSamples: maxBatchSamples, maxBytes: 512 * 1024 });

/**
 * Drains the spool to the server, oldest batch first, one at a time: a batch leaves the spool
 * only once the server acknowledged it. While the server is down it retries the same batch with
 * exponential backoff and full jitter, honouring Retry-After; a batch the server calls malformed
 * is removed and counted so it cannot block the batches behind it.
 */
export class Pusher {
  readonly #options: Required<Omit<PusherOptions, 'logger'>> & { logger: Logger };
  readonly #stats: PusherStats = {
    sentBatches: 0,
    sentSamples: 0,
    duplicateBatches: 0,
    serverRejectedSamples: 0,
    refusedBatches: 0,
    failures: 0,
    consecutiveFailures: 0,
    lastError: null,
    lastErrorAt: null,
    lastSuccessAt: null,
  };
  readonly #stopping = new AbortController();
  #wake: (() => void) | undefined;
  #running: Promise<void> | undefined;
  #failingSince: Date | undefined;

  constructor(options: PusherOptions) {
    this.#options = {
      backoff: defaultBackoff,
      limits: defaultSendLimits,
      maxRetryAfterMs: 3_600_000,
      random: Math.random,
      now: () => new Date(),
      ...options,
    };
  }

  start(): void {
    this.#running ??= this.#run();
  }

  /** New batches are in the spool: send now if idle. A pusher backing off keeps its pace. */
  notify(): void {
    this.#wake?.();
  }

  /** Lets the send in flight finish (and be acknowledged), then returns. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    this.#wake?.();
    await this.#running;
  }

  stats(): Readonly<PusherStats> {
    return { ...this.#stats };
  }

  async #run(): Promise<void> {
    const { spool, transport, limits } = this.#options;
    let attempt = 0;
    while (!this.#stopping.signal.aborted) {
      let batchId: string | undefined;
      try {
        const batch = spool.nextToSend(limits);
        if (batch === undefined) {
          await this.#idle();
          continue;
        }
        batchId = batch.batchId;
        const ack = await transport.sendBatch({
          batch_id: batch.batchId,
          spool_dropped_total: spool.droppedTotal(),
          ...this.#backlogReport(batch.batchId),
          samples: batch.samples,
        });
        spool.ack(batch.batchId);
        this.#options.logger.debug(
          { batchId: batch.batchId, samples: batch.samples.length, stored: ack.stored, duplicate: ack.duplicate, rejected: ack.rejected },
          'batch delivered',
        );
        this.#succeeded(batch.samples.length, ack.duplicate, ack.rejected);
        attempt = 0;
      } catch (error) {
        if (error instanceof RejectedBatchError && batchId !== undefined && this.#refused(batchId, error)) continue;
        const delayMs = this.#failed(error, attempt);
        attempt += 1;
        await this.#pause(delayMs);
      }
    }
  }

  /** The spool's depth and oldest age behind the batch being sent, as the protocol reports them. */
  #backlogReport(batchId: string): { spool_batches: number; spool_oldest_batch_age_seconds: number } {
    const backlog = this.#options.spool.backlogBehind(batchId);
    const ageMs = backlog.oldestCreatedAt === null ? 0 : this.#options.now().getTime() - Date.parse(backlog.oldestCreatedAt);
    // A clock stepped back gives a negative age, one stepped far forward one beyond the protocol's bound.
    return { spool_batches: backlog.batches, spool_oldest_batch_age_seconds: Math.min(Math.max(0, ageMs) / 1000, maxSpoolAgeSeconds) };
  }

  #succeeded(samples: number, duplicate: boolean, rejected: number): void {
    const stats = this.#stats;
    stats.sentBatches += 1;
    stats.sentSamples += samples;
    if (duplicate) stats.duplicateBatches += 1;
    stats.serverRejectedSamples += rejected;
    stats.lastSuccessAt = this.#options.now().toISOString();
    if (rejected > 0) this.#options.logger.warn({ rejected, samples }, 'the server did not store some samples of a batch');
    if (stats.consecutiveFailures > 0) {
      this.#options.logger.info(
        { failedAttempts: stats.consecutiveFailures, since: this.#failingSince?.toISOString() },
        'delivery resumed',
      );
    }
    stats.consecutiveFailures = 0;
    this.#failingSince = undefined;
  }

  /** Removes a refused batch; false when the spool could not (then it is retried like any failure). */
  #refused(batchId: string, error: RejectedBatchError): boolean {
    let dropped: number;
    try {
      dropped = this.#options.spool.reject(batchId);
    } catch {
      return false;
    }
    this.#stats.refusedBatches += 1;
    this.#options.logger.error(
      { batchId, samples: dropped, status: error.status, error: error.message },
      'the server refused a batch as malformed; it was removed from the spool and will not be resent',
    );
    return true;
  }

  /** Records a failed attempt and returns how long to wait before the next one. */
  #failed(error: unknown, attempt: number): number {
    const { backoff, random, maxRetryAfterMs, logger, now } = this.#options;
    const stats = this.#stats;
    const message = error instanceof Error ? error.message : String(error);
    const repeated = stats.lastError === message && stats.consecutiveFailures > 0;
    stats.failures += 1;
    stats.consecutiveFailures += 1;
    stats.lastError = message;
    stats.lastErrorAt = now().toISOString();
    this.#failingSince ??= now();

    if (error instanceof AuthRefusedError) {
      // Nothing passes until an operator fixes the key: say so plainly, and keep retrying slowly.
      logger.error({ status: error.status, error: message }, 'the server refused the agent key; batches stay in the spool');
      return backoff.capMs;
    }
    let delayMs = fullJitterDelay(attempt, backoff, random);
    if (error instanceof RetryableError && error.retryAfterMs !== undefined) {
      delayMs = Math.min(error.retryAfterMs, maxRetryAfterMs);
    }
    const fields = { error: message, attempt: stats.consecutiveFailures, retryInMs: delayMs };
    if (!(error instanceof RetryableError)) logger.error(fields, 'unexpected delivery failure; retrying');
    else if (repeated) logger.debug(fields, 'delivery failed; retrying');
    else logger.warn(fields, 'delivery failed; retrying');
    return delayMs;
  }

  async #idle(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    this.#wake = undefined;
  }

  async #pause(ms: number): Promise<void> {
    try {
      await sleep(ms, undefined, { signal: this.#stopping.signal });
    } catch {
      // Stopped while waiting.
    }
  }
}
