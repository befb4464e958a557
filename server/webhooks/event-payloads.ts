import { z } from 'zod';
import { alertRecord } from '../alerts/alerts-schema.js';
import { databaseRecord, databaseStatuses } from '../databases/databases-schema.js';
import { optimizationRecord } from '../optimizations/optimizations-schema.js';
import { webhookRecord, type EventType, type testEventType } from './webhooks-schema.js';

/** Every type of event the server delivers: the subscribable ones and the test event. */
export type DeliveredEventType = EventType | typeof testEventType;

interface EventDefinition {
  schemaName: string;
  summary: string;
  data: z.ZodObject;
}

const aboutAlert = z.object({ object: alertRecord });
const aboutOptimization = z.object({ object: optimizationRecord });

const definitions = {
  'alert.triggered': { schemaName: 'AlertTriggeredEvent', summary: 'An alert fired', data: aboutAlert },
  'alert.resolved': { schemaName: 'AlertResolvedEvent', summary: 'An alert was resolved, by its condition clearing or by hand', data: aboutAlert },
  'database.status_changed': {
    schemaName: 'DatabaseStatusChangedEvent',
    summary: "A database's status changed",
    data: z.object({
      object: databaseRecord,
      previous_attributes: z.object({ status: z.enum(databaseStatuses).describe('The status before the change') }),
    }),
  },
  'optimization.ready': { schemaName: 'OptimizationReadyEvent', summary: 'An analysis found an optimization that can be applied', data: aboutOptimization },
  'optimization.applied': { schemaName: 'OptimizationAppliedEvent', summary: 'An optimization was applied', data: aboutOptimization },
  'optimization.failed': { schemaName: 'OptimizationFailedEvent', summary: 'The analysis or the application of an optimization failed', data: aboutOptimization },
  'webhook.test': { schemaName: 'WebhookTestEvent', summary: 'Sent by POST /v1/webhooks/{id}/test to that endpoint alone', data: z.object({ object: webhookRecord }) },
} as const satisfies Record<DeliveredEventType, EventDefinition>;

/** `data` of each event type: `object` is the resource the event is about, Stripe-style. */
export type EventData<T extends DeliveredEventType> = z.output<(typeof definitions)[T]['data']>;

export interface EventPayloadSchema {
  type: DeliveredEventType;
  summary: string;
  /** The whole body of a delivery: `{id, type, created_at, data}`. */
  payload: z.ZodObject;
}

/** The single definition of what each event's delivery carries; the OpenAPI document's `webhooks` are made of it. */
export const eventPayloadSchemas: readonly EventPayloadSchema[] = Object.entries(definitions).map(([type, definition]) => ({
  type: type as DeliveredEventType,
  summary: definition.summary,
  payload: z
    .object({
      id: z.string().describe('evt_...: also the webhook-id header, the same on every retry'),
      type: z.literal(type),
      created_at: z.string().describe('When the change happened'),
      data: definition.data,
    })
    .meta({ id: definition.schemaName, description: definition.summary }),
}));
