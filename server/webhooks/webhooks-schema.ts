import { z } from 'zod';
import { pagingQuery, paginationSchema } from '../http/paging.js';

export const eventTypes = [
  'alert.triggered',
  'alert.resolved',
  'database.status_changed',
  'optimization.ready',
  'optimization.applied',
  'optimization.failed',
] as const;
export type EventType = (typeof eventTypes)[number];

/** Sent only by POST /v1/webhooks/{id}/test, to that endpoint alone, whatever its filter. */
export const testEventType = 'webhook.test';

export const deliveryStatuses = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

const url = z
  .url({ protocol: /^https?$/, normalize: true })
  .max(2048)
  .refine((text) => !URL.canParse(text) || (new URL(text).username === '' && new URL(text).password === ''), 'must not carry credentials')
  .describe(
    'http or https. Refused when the host does not resolve or resolves to a loopback, link-local, private, unique-local, multicast or unspecified ' +
      'address (also in IPv4-compatible, 6to4 or local-use NAT64 form; the refusal does not say which address), unless the server runs with webhooks.allow_private_targets; checked again at every delivery, which connects to the checked address.',
  );
const description = z.string().trim().max(500);
const eventTypeFilter = z
  .array(z.enum([...eventTypes, '*']))
  .min(1)
  .max(eventTypes.length + 1)
  .describe('The event types delivered to this endpoint; `*` for all of them (also those added later)');

export const webhookCreateBody = z
  .strictObject({
    url,
    description: description.default(''),
    event_types: eventTypeFilter.default(['*']),
    enabled: z.boolean().default(true),
  })
  .meta({ id: 'WebhookCreate' });

export const webhookUpdateBody = z
  .strictObject({
    url: url.optional(),
    description: description.optional(),
    event_types: eventTypeFilter.optional(),
    enabled: z.boolean().optional().describe('Enabling an endpoint that was disabled (also by a 410 answer) clears disabled_reason'),
  })
  .meta({ id: 'WebhookUpdate' });

export type WebhookCreate = z.output<typeof webhookCreateBody>;
export type WebhookUpdate = z.output<typeof webhookUpdateBody>;

export const webhookRecord = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string(),
    event_types: z.array(z.string()),
    enabled: z.boolean(),
    disabled_reason: z
      .enum(['gone'])
      .nullable()
      .describe('`gone` when the server disabled the endpoint because it answered 410 Gone'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Webhook' });

export const webhookCreated = webhookRecord
  .extend({
    secret: z
      .string()
      .describe('whsec_ + base64 of 24 random bytes: the Standard Webhooks signing secret, shown this once only'),
  })
  .meta({ id: 'WebhookWithSecret' });

export const webhookList = z.object({ data: z.array(webhookRecord), pagination: paginationSchema() }).meta({ id: 'WebhookList' });

export const deliveryAttemptRecord = z
  .object({
    attempt: z.number().int(),
    attempted_at: z.string(),
    duration_ms: z.number().int(),
    response_code: z.number().int().nullable(),
    error: z.string().nullable(),
    next_attempt_at: z.string().nullable().describe('When the next retry was scheduled; null after the last attempt'),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

export const deliveryRecord = z
  .object({
    webhook_id: z.string(),
    event_id: z.string().describe('Also the webhook-id header of every attempt'),
    event_type: z.string(),
    status: z.enum(deliveryStatuses),
    attempts: z.number().int(),
    response_code: z.number().int().nullable().describe('Of the last attempt'),
    error: z.string().nullable().describe('Of the last attempt'),
    last_attempt_at: z.string().nullable(),
    next_attempt_at: z.string().nullable(),
    created_at: z.string(),
    completed_at: z.string().nullable(),
    attempt_history: z.array(deliveryAttemptRecord),
  })
  .meta({ id: 'WebhookDelivery' });

export const deliveryList = z
  .object({ data: z.array(deliveryRecord), pagination: paginationSchema() })
  .meta({ id: 'WebhookDeliveryList' });

export const deliveryListQuery = z.strictObject({ ...pagingQuery, status: z.enum(deliveryStatuses).optional() });

export const webhookIdParams = z.object({ id: z.string() });
