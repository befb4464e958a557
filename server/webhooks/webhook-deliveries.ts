import type { SecretBox } from '../../common/secret-box.js';
import { nextAttemptAt, type RetryPolicy } from './retry-schedule.js';
import type { WebhookOutboxRepository } from './webhook-outbox-repository.js';
import type { WebhooksRepository } from './webhooks-repository.js';
import type { DeliveryStatus } from './webhooks-schema.js';
import type { Transaction } from '../storage/open-database.js';


/** A due delivery taken by the dispatcher, with what it needs to send and sign it. */
export interface ClaimedDelivery {
  webhookId: string;
  eventId: string;
  /** Attempts made before this one. */
  attempts: number;
  createdAtMs: number;
  url: string;
  secret: string;
  payload: string;
}

export interface AttemptOutcome {
  attemptedAtMs: number;
  durationMs: number;
  responseCode: number | null;
  error: string | null;
  retryAfterMs?: number | undefined;
}

/**
 * The outbox side of delivery, without I/O: which deliveries are due, and what an attempt's
 * outcome means (done, retry when, or give up; a 410 disables the endpoint). The dispatcher does the sending.
 */
export class WebhookDeliveries {
  constructor(
    private readonly outbox: WebhookOutboxRepository,
    private readonly webhooks: WebhooksRepository,
    private readonly secrets: SecretBox,
    private readonly transaction: Transaction,
    readonly policy: RetryPolicy,
  ) {}

  /**
   * Takes up to `limit` due deliveries and leases each until `leaseUntil`: a crash during the
   * attempt leaves it pending, and it is tried again when the lease ends.
   */
  claimDue(now: Date, limit: number, leaseUntil: Date, skip: ReadonlySet<string>): ClaimedDelivery[] {
    return this.transaction(() => {
      const claimed: ClaimedDelivery[] = [];
      for (const row of this.outbox.due(now.getTime(), limit + skip.size)) {
        if (claimed.length === limit) break;
        if (skip.has(deliveryKey(row.webhook_id, row.event_id))) continue;
        let secret: string;
        try {
          secret = this.secrets.open(row.secret_encrypted, row.webhook_id);
        } catch {
          this.#finish(row.webhook_id, row.event_id, row.attempts, now.getTime(), 'failed', null, 'the signing secret cannot be decrypted with this server key');
          continue;
        }
        this.outbox.lease(row.webhook_id, row.event_id, leaseUntil.getTime());
        claimed.push({
          webhookId: row.webhook_id,
          eventId: row.event_id,
          attempts: row.attempts,
          createdAtMs: row.created_at,
          url: row.url,
          secret,
          payload: row.payload,
        });
      }
      return claimed;
    });
  }

  /** Records one attempt and decides what follows; returns the delivery's status after it. */
  record(claimed: ClaimedDelivery, outcome: AttemptOutcome, random: () => number): DeliveryStatus {
    return this.transaction(() => {
      const attempt = claimed.attempts + 1;
      const code = outcome.responseCode;
      const succeeded = code !== null && code >= 200 && code < 300;
      const gone = code === 410;
      const retryAt =
        succeeded || gone
          ? undefined
          : nextAttemptAt(
              { attempts: attempt, createdAtMs: claimed.createdAtMs, nowMs: outcome.attemptedAtMs + outcome.durationMs, retryAfterMs: outcome.retryAfterMs },
              this.policy,
              random,
            );
      const status: DeliveryStatus = succeeded ? 'succeeded' : retryAt === undefined ? 'failed' : 'pending';
      const error = gone ? 'HTTP 410: the endpoint is gone and was disabled' : outcome.error;
      this.outbox.insertAttempt({
        webhook_id: claimed.webhookId,
        event_id: claimed.eventId,
        attempt,
        attempted_at: outcome.attemptedAtMs,
        duration_ms: outcome.durationMs,
        response_code: code,
        error,
        next_attempt_at: retryAt ?? null,
      });
      this.outbox.update({
        webhook_id: claimed.webhookId,
        event_id: claimed.eventId,
        status,
        attempts: attempt,
        next_attempt_at: retryAt ?? null,
        last_attempt_at: outcome.attemptedAtMs,
        response_code: code,
        error,
        completed_at: status === 'pending' ? null : outcome.attemptedAtMs + outcome.durationMs,
      });
      if (gone) this.webhooks.disable(claimed.webhookId, 'gone', new Date(outcome.attemptedAtMs).toISOString());
      return status;
    });
  }

  /** Forgets finished events older than the cutoff. */
  prune(before: Date): number {
    return this.outbox.prune(before.getTime());
  }

  #finish(webhookId: string, eventId: string, attempts: number, atMs: number, status: DeliveryStatus, code: number | null, error: string): void {
    this.outbox.update({
      webhook_id: webhookId,
      event_id: eventId,
      status,
      attempts,
      next_attempt_at: null,
      last_attempt_at: null,
      response_code: code,
      error,
      completed_at: atMs,
    });
  }
}

export function deliveryKey(webhookId: string, eventId: string): string {
  return `${webhookId}/${eventId}`;
}
