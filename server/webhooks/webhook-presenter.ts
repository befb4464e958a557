import type { AttemptRow, DeliveryRow } from './webhook-outbox-repository.js';
import type { WebhookRow } from './webhooks-repository.js';

/** The public record: the secret never leaves after creation. */
export function presentWebhook(row: WebhookRow) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: JSON.parse(row.event_types) as string[],
    enabled: row.enabled === 1,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function presentDelivery(row: DeliveryRow, attempts: readonly AttemptRow[]) {
  return {
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    response_code: row.response_code,
    error: row.error,
    last_attempt_at: iso(row.last_attempt_at),
    next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    created_at: new Date(row.created_at).toISOString(),
    completed_at: iso(row.completed_at),
    attempt_history: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      attempted_at: new Date(attempt.attempted_at).toISOString(),
      duration_ms: attempt.duration_ms,
      response_code: attempt.response_code,
      error: attempt.error,
      next_attempt_at: iso(attempt.next_attempt_at),
    })),
  };
}
