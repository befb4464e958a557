import type { SecretBox } from '../../common/secret-box.js';
import type { Db, Transaction } from '../storage/open-database.js';
import { DestinationGuard } from './destination-guard.js';
import { EventOutbox } from './event-outbox.js';
import { defaultRetryPolicy, type RetryPolicy } from './retry-schedule.js';
import { WebhookDeliveries } from './webhook-deliveries.js';
import { WebhookDispatcher, type WebhookDispatcherOptions } from './webhook-dispatcher.js';
import { WebhookOutboxRepository } from './webhook-outbox-repository.js';
import { WebhooksRepository } from './webhooks-repository.js';
import { webhooksRoutes } from './webhooks-routes.js';
import { WebhooksService } from './webhooks-service.js';

export interface WebhooksDependencies {
  db: Db;
  secretBox: SecretBox;
  /** Config webhooks.allow_private_targets. */
  allowPrivateTargets: boolean;
  retryPolicy?: RetryPolicy | undefined;
  transaction: Transaction;
}

/** Webhooks: the event outbox other features publish to, webhook management, and the dispatcher that delivers. */
export function createWebhooks({ db, secretBox, allowPrivateTargets, retryPolicy, transaction }: WebhooksDependencies) {
  const records = new WebhooksRepository(db);
  const outbox = new WebhookOutboxRepository(db);
  const events = new EventOutbox(outbox, records);
  const guard = new DestinationGuard(allowPrivateTargets);
  const webhooks = new WebhooksService(records, outbox, events, secretBox, guard, transaction);
  const deliveries = new WebhookDeliveries(outbox, records, secretBox, transaction, retryPolicy ?? defaultRetryPolicy);
  return {
    events,
    webhooks,
    /** A dispatcher over this outbox (not started). */
    dispatcher: (options: Omit<WebhookDispatcherOptions, 'deliveries' | 'guard'>) => new WebhookDispatcher({ deliveries, guard, ...options }),
    /** What the dispatcher has left to deliver (the server's /metrics). */
    backlog: () => outbox.backlog(),
    routes: (now: () => Date) => webhooksRoutes(webhooks, now),
  };
}
