import type { Db } from '../storage/open-database.js';
import type { DeliveryStatus } from './webhooks-schema.js';

export interface EventRow {
  id: string;
  org_id: string;
  type: string;
  payload: string;
  created_at: number;
}

export interface DeliveryRow {
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: number | null;
  last_attempt_at: number | null;
  response_code: number | null;
  error: string | null;
  created_at: number;
  completed_at: number | null;
}

export interface AttemptRow {
  webhook_id: string;
  event_id: string;
  attempt: number;
  attempted_at: number;
  duration_ms: number;
  response_code: number | null;
  error: string | null;
  next_attempt_at: number | null;
}

/** A pending delivery that is due, with what sending it needs. */
export interface DueDeliveryRow {
  webhook_id: string;
  event_id: string;
  attempts: number;
  created_at: number;
  payload: string;
  url: string;
  secret_encrypted: Buffer;
}

/** Pending deliveries to enabled endpoints: how many, and when the oldest was created (null when none). */
export interface OutboxBacklog {
  pending: number;
  oldest_created_at: number | null;
}

export type DeliveryUpdate = Pick<
  DeliveryRow,
  'webhook_id' | 'event_id' | 'status' | 'attempts' | 'next_attempt_at' | 'last_attempt_at' | 'response_code' | 'error' | 'completed_at'
>;

const deliverySelect = `SELECT d.*, e.type AS event_type FROM webhook_deliveries d JOIN events e ON e.id = d.event_id`;

/** Events and their deliveries: the durable outbox the dispatcher drains. */
export class WebhookOutboxRepository {
  readonly #insertEvent;
  readonly #insertDelivery;
  readonly #due;
  readonly #lease;
  readonly #update;
  readonly #insertAttempt;
  readonly #page;
  readonly #count;
  readonly #one;
  readonly #attempts;
  readonly #prune;
  readonly #backlog;

  constructor(private readonly db: Db) {
    this.#insertEvent = db.prepare<EventRow>(
      'INSERT INTO events (id, org_id, type, payload, created_at) VALUES (@id, @org_id, @type, @payload, @created_at)',
    );
    this.#insertDelivery = db.prepare<[string, string, number, number]>(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, status, attempts, next_attempt_at, created_at)
       VALUES (?, ?, 'pending', 0, ?, ?)`,
    );
    this.#due = db.prepare<[number, number], DueDeliveryRow>(
      `SELECT d.webhook_id, d.event_id, d.attempts, d.created_at, e.payload, w.url, w.secret_encrypted
       FROM webhook_deliveries d
       JOIN events e ON e.id = d.event_id
       JOIN webhooks w ON w.id = d.webhook_id
       WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND w.enabled = 1
       ORDER BY d.next_attempt_at, d.created_at, e.rowid
       LIMIT ?`,
    );
    // As the dispatcher sees it: a disabled endpoint's deliveries wait for it to be enabled, not for the dispatcher.
    this.#backlog = db.prepare<[], OutboxBacklog>(
      `SELECT count(*) AS pending, min(d.created_at) AS oldest_created_at
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
       WHERE d.status = 'pending' AND w.enabled = 1`,
    );
    this.#lease = db.prepare<[number, string, string]>(
      "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE webhook_id = ? AND event_id = ? AND status = 'pending'",
    );
    this.#update = db.prepare<DeliveryUpdate>(
      `UPDATE webhook_deliveries SET status = @status, attempts = @attempts, next_attempt_at = @next_attempt_at,
         last_attempt_at = @last_attempt_at, response_code = @response_code, error = @error, completed_at = @completed_at
       WHERE webhook_id = @webhook_id AND event_id = @event_id`,
    );
    this.#insertAttempt = db.prepare<AttemptRow>(
      `INSERT INTO webhook_delivery_attempts (webhook_id, event_id, attempt, attempted_at, duration_ms, response_code, error, next_attempt_at)
       VALUES (@webhook_id, @event_id, @attempt, @attempted_at, @duration_ms, @response_code, @error, @next_attempt_at)`,
    );
    const filter = '(@status IS NULL OR d.status = @status)';
    this.#page = db.prepare<{ webhook_id: string; status: string | null; limit: number; offset: number }, DeliveryRow>(
      `${deliverySelect} WHERE d.webhook_id = @webhook_id AND ${filter}
       ORDER BY d.created_at DESC, d.event_id DESC LIMIT @limit OFFSET @offset`,
    );
    this.#count = db
      .prepare<{ webhook_id: string; status: string | null }, number>(
        `SELECT count(*) FROM webhook_deliveries d WHERE d.webhook_id = @webhook_id AND ${filter}`,
      )
      .pluck();
    this.#one = db.prepare<[string, string], DeliveryRow>(`${deliverySelect} WHERE d.webhook_id = ? AND d.event_id = ?`);
    this.#attempts = db.prepare<[string, string], AttemptRow>(
      'SELECT * FROM webhook_delivery_attempts WHERE webhook_id = ? AND event_id = ? ORDER BY attempt',
    );
    // Events whose deliveries are all done (or that had none) and that are older than the cutoff.
    this.#prune = db.prepare<[number]>(
      `DELETE FROM events WHERE created_at < ?
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id AND d.status = 'pending')`,
    );
  }

  inTransaction(): boolean {
    return this.db.inTransaction;
  }

  insertEvent(row: EventRow): void {
    this.#insertEvent.run(row);
  }

  insertDelivery(webhookId: string, eventId: string, nowMs: number): void {
    this.#insertDelivery.run(webhookId, eventId, nowMs, nowMs);
  }

  due(nowMs: number, limit: number): DueDeliveryRow[] {
    return this.#due.all(nowMs, limit);
  }

  backlog(): OutboxBacklog {
    return this.#backlog.get()!;
  }

  /** Pushes a claimed delivery's next attempt out, so a crash during the attempt retries it after the lease. */
  lease(webhookId: string, eventId: string, untilMs: number): void {
    this.#lease.run(untilMs, webhookId, eventId);
  }

  update(update: DeliveryUpdate): void {
    this.#update.run(update);
  }

  insertAttempt(row: AttemptRow): void {
    this.#insertAttempt.run(row);
  }

  /** Newest first. */
  list(webhookId: string, status: DeliveryStatus | undefined, limit: number, offset: number): { rows: DeliveryRow[]; total: number } {
    const where = { webhook_id: webhookId, status: status ?? null };
    return { rows: this.#page.all({ ...where, limit, offset }), total: this.#count.get(where)! };
  }

  find(webhookId: string, eventId: string): DeliveryRow | undefined {
    return this.#one.get(webhookId, eventId);
  }

  attemptsOf(webhookId: string, eventId: string): AttemptRow[] {
    return this.#attempts.all(webhookId, eventId);
  }

  /** Deletes finished events older than the cutoff, with their deliveries and attempts; returns how many. */
  prune(beforeMs: number): number {
    return this.#prune.run(beforeMs).changes;
  }
}
