import { newId } from '../crypto/new-id.js';
import type { DeliveredEventType, EventData } from './event-payloads.js';
import type { WebhookOutboxRepository } from './webhook-outbox-repository.js';
import type { WebhookRow, WebhooksRepository } from './webhooks-repository.js';
import { testEventType, type EventType } from './webhooks-schema.js';

/**
 * Records events and queues one delivery per subscribed webhook. It must be called inside the
 * SQLite transaction of the state change the event reports, so the change and its event are
 * stored together or not at all; it refuses to run outside one.
 */
export class EventOutbox {
  constructor(
    private readonly outbox: WebhookOutboxRepository,
    private readonly webhooks: WebhooksRepository,
  ) {}

  /** Payload `{id, type, created_at, data}`; `data.object` is the resource, Stripe-style. Returns the event id. */
  publish<T extends EventType>(orgId: string, type: T, data: EventData<T>, now: Date): string {
    const id = this.#record(orgId, type, data, now);
    for (const webhook of this.webhooks.enabledOf(orgId)) {
      if (subscribes(webhook, type)) this.outbox.insertDelivery(webhook.id, id, now.getTime());
    }
    return id;
  }

  /** The test event, queued for one endpoint only. */
  publishTest(webhook: WebhookRow, data: EventData<typeof testEventType>, now: Date): string {
    const id = this.#record(webhook.org_id, testEventType, data, now);
    this.outbox.insertDelivery(webhook.id, id, now.getTime());
    return id;
  }

  #record<T extends DeliveredEventType>(orgId: string, type: T, data: EventData<T>, now: Date): string {
    if (!this.outbox.inTransaction()) throw new Error('events must be published inside the transaction of the change they report');
    const id = newId('evt');
    const payload = JSON.stringify({ id, type, created_at: now.toISOString(), data });
    this.outbox.insertEvent({ id, org_id: orgId, type, payload, created_at: now.getTime() });
    return id;
  }
}

export function subscribes(webhook: Pick<WebhookRow, 'event_types'>, type: string): boolean {
  const types = JSON.parse(webhook.event_types) as string[];
  return types.includes('*') || types.includes(type);
}
