import { ConflictError, InvalidRequestError, NotFoundError } from '../errors.js';
import { newId } from '../crypto/new-id.js';
import type { SecretBox } from '../../common/secret-box.js';
import { DestinationRefusedError, type DestinationChecker } from './destination-guard.js';
import type { EventOutbox } from './event-outbox.js';
import { presentWebhook } from './webhook-presenter.js';
import type { AttemptRow, DeliveryRow, WebhookOutboxRepository } from './webhook-outbox-repository.js';
import { newWebhookSecret } from './webhook-signature.js';
import type { WebhookRow, WebhooksRepository } from './webhooks-repository.js';
import type { DeliveryStatus, WebhookCreate, WebhookUpdate } from './webhooks-schema.js';
import type { Transaction } from '../storage/open-database.js';


export class WebhooksService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly outbox: WebhookOutboxRepository,
    private readonly events: EventOutbox,
    private readonly secrets: SecretBox,
    private readonly destinations: DestinationChecker,
    private readonly transaction: Transaction,
  ) {}

  /** Stores the endpoint with a new secret, returned this once in plain text. */
  async create(orgId: string, input: WebhookCreate, now: Date): Promise<{ row: WebhookRow; secret: string }> {
    await this.checkDestination(input.url);
    const id = newId('wh');
    const secret = newWebhookSecret();
    const at = now.toISOString();
    const row: WebhookRow = {
      id,
      org_id: orgId,
      url: input.url,
      description: input.description,
      event_types: JSON.stringify(unique(input.event_types)),
      secret_encrypted: this.secrets.seal(secret, id),
      enabled: Number(input.enabled),
      disabled_reason: null,
      created_at: at,
      updated_at: at,
    };
    this.webhooks.insert(row);
    return { row, secret };
  }

  get(orgId: string, id: string): WebhookRow {
    const row = this.webhooks.findById(orgId, id);
    if (row === undefined) throw new NotFoundError(`No webhook ${id}`, 'id');
    return row;
  }

  list(orgId: string, limit: number, offset: number) {
    return this.webhooks.list(orgId, limit, offset);
  }

  /** Merges the given fields; a new URL is checked like at creation; enabling clears disabled_reason. */
  async update(orgId: string, id: string, patch: WebhookUpdate, now: Date): Promise<WebhookRow> {
    if (patch.url !== undefined) await this.checkDestination(patch.url);
    const current = this.get(orgId, id);
    const enabled = patch.enabled ?? current.enabled === 1;
    const next: WebhookRow = {
      ...current,
      url: patch.url ?? current.url,
      description: patch.description ?? current.description,
      event_types: patch.event_types === undefined ? current.event_types : JSON.stringify(unique(patch.event_types)),
      enabled: Number(enabled),
      disabled_reason: enabled ? null : current.disabled_reason,
      updated_at: now.toISOString(),
    };
    this.webhooks.update(next);
    return next;
  }

  /** Removes the endpoint with its pending and past deliveries. */
  delete(orgId: string, id: string): void {
    if (!this.webhooks.delete(orgId, id)) throw new NotFoundError(`No webhook ${id}`, 'id');
  }

  /** Queues a `webhook.test` event for this endpoint alone; it is delivered, signed and retried like any other. */
  test(orgId: string, id: string, now: Date): { delivery: DeliveryRow; attempts: AttemptRow[] } {
    const webhook = this.get(orgId, id);
    if (webhook.enabled !== 1) throw new ConflictError('webhook_disabled', `Webhook ${id} is disabled; enable it first`, 'id');
    const eventId = this.transaction(() => this.events.publishTest(webhook, { object: presentWebhook(webhook) }, now));
    return { delivery: this.outbox.find(webhook.id, eventId)!, attempts: [] };
  }

  /** Newest first, each with its attempts. */
  deliveries(orgId: string, id: string, status: DeliveryStatus | undefined, limit: number, offset: number) {
    const webhook = this.get(orgId, id);
    const { rows, total } = this.outbox.list(webhook.id, status, limit, offset);
    return { total, rows: rows.map((row) => ({ delivery: row, attempts: this.outbox.attemptsOf(row.webhook_id, row.event_id) })) };
  }

  private async checkDestination(url: string): Promise<void> {
    try {
      await this.destinations.check(new URL(url));
    } catch (error) {
      if (error instanceof DestinationRefusedError) throw new InvalidRequestError('invalid_parameter', `Refused url: ${error.message}`, 'url');
      throw error;
    }
  }
}

function unique(types: readonly string[]): string[] {
  return types.includes('*') ? ['*'] : [...new Set(types)];
}
