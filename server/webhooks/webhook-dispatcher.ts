import type { Logger } from 'pino';
import type { DestinationGuard } from './destination-guard.js';
import { deliveryKey, type ClaimedDelivery, type WebhookDeliveries } from './webhook-deliveries.js';
import { sendWebhook } from './webhook-sender.js';
import { signedHeaders } from './webhook-signature.js';
import type { DeliveryStatus } from './webhooks-schema.js';

/** What the dispatcher tells about its attempts (the server's `/metrics`). */
export interface DeliveryObserver {
  /** An attempt was recorded: the delivery's status after it (pending: failed, to be retried). */
  webhookAttempted(status: DeliveryStatus): void;
}

export interface WebhookDispatcherOptions {
  deliveries: WebhookDeliveries;
  guard: DestinationGuard;
  logger: Logger;
  observer: DeliveryObserver;
  now?: () => Date;
  random?: () => number;
  /** How often the outbox is polled for due deliveries. */
  pollIntervalMs?: number;
  /** Deadline of one attempt, connection to last byte. */
  timeoutMs?: number;
  /** Attempts in flight at once. */
  concurrency?: number;
  userAgent?: string;
  /** Finished events older than this are pruned (with their deliveries) once an hour. */
  keepFinishedMs?: number;
}

const hourMs = 3_600_000;

/**
 * Drains the outbox: polls for due deliveries, sends each one signed the Standard Webhooks way
 * (the event id as `webhook-id`, the same on every retry), and records the outcome, which
 * schedules the retry. Everything it needs survives in SQLite, so a restarted server simply goes on.
 */
export class WebhookDispatcher {
  readonly #options: Required<Omit<WebhookDispatcherOptions, 'userAgent'>> & { userAgent: string };
  readonly #inFlight = new Map<string, Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #lastPruneMs = 0;

  constructor(options: WebhookDispatcherOptions) {
    this.#options = {
      now: () => new Date(),
      random: Math.random,
      pollIntervalMs: 1000,
      timeoutMs: 15_000,
      concurrency: 8,
      userAgent: 'dbmon-webhooks',
      keepFinishedMs: 30 * 24 * hourMs,
      ...options,
    };
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    const loop = () => {
      this.#timer = setTimeout(() => {
        this.#poll()
          .catch((error: unknown) => this.#options.logger.error({ err: error }, 'webhook dispatch failed'))
          .finally(() => {
            if (this.#running) loop();
          });
      }, this.#options.pollIntervalMs);
    };
    loop();
  }

  /** Stops polling and waits for the attempts in flight to be recorded. */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await Promise.allSettled([...this.#inFlight.values()]);
  }

  /** Sends what is due now and waits for those attempts; returns how many were made. Tests drive the dispatcher with it. */
  async tick(): Promise<number> {
    const started = this.#dispatchDue();
    await Promise.allSettled(started);
    return started.length;
  }

  async #poll(): Promise<void> {
    this.#dispatchDue();
    const nowMs = this.#options.now().getTime();
    if (nowMs - this.#lastPruneMs >= hourMs) {
      this.#lastPruneMs = nowMs;
      const pruned = this.#options.deliveries.prune(new Date(nowMs - this.#options.keepFinishedMs));
      if (pruned > 0) this.#options.logger.info({ pruned }, 'pruned finished webhook events');
    }
  }

  #dispatchDue(): Promise<void>[] {
    const free = this.#options.concurrency - this.#inFlight.size;
    if (free <= 0) return [];
    const now = this.#options.now();
    const leaseUntil = new Date(now.getTime() + this.#options.timeoutMs + 30_000);
    const claimed = this.#options.deliveries.claimDue(now, free, leaseUntil, new Set(this.#inFlight.keys()));
    return claimed.map((delivery) => {
      const key = deliveryKey(delivery.webhookId, delivery.eventId);
      const attempt = this.#attempt(delivery).finally(() => this.#inFlight.delete(key));
      this.#inFlight.set(key, attempt);
      return attempt;
    });
  }

  async #attempt(delivery: ClaimedDelivery): Promise<void> {
    const { logger, now, random, guard, timeoutMs } = this.#options;
    const attemptedAt = now();
    const headers = {
      ...signedHeaders(delivery.secret, delivery.eventId, Math.floor(attemptedAt.getTime() / 1000), delivery.payload),
      'user-agent': this.#options.userAgent,
    };
    const outcome = await sendWebhook({ url: delivery.url, headers, body: delivery.payload }, guard, timeoutMs, () => now().getTime());
    let status;
    try {
      status = this.#options.deliveries.record(delivery, { attemptedAtMs: attemptedAt.getTime(), ...outcome }, random);
    } catch (error) {
      // The endpoint was deleted during the attempt, say: nothing is left to record.
      logger.error({ err: error, webhookId: delivery.webhookId, eventId: delivery.eventId }, 'could not record a webhook attempt');
      return;
    }
    this.#options.observer.webhookAttempted(status);
    const fields = {
      webhookId: delivery.webhookId,
      eventId: delivery.eventId,
      attempt: delivery.attempts + 1,
      responseCode: outcome.responseCode,
      status,
    };
    if (status === 'succeeded') logger.debug(fields, 'webhook delivered');
    else logger.warn({ ...fields, error: outcome.error }, status === 'failed' ? 'webhook delivery failed for good' : 'webhook delivery failed; will retry');
  }
}
