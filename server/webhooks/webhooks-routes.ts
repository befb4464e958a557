import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { pageWindow, pagingQuery, sendList } from '../http/paging.js';
import { errorBody, errorResponses } from '../openapi/error-responses.js';
import { presentDelivery, presentWebhook } from './webhook-presenter.js';
import type { WebhooksService } from './webhooks-service.js';
import {
  deliveryList,
  deliveryListQuery,
  deliveryRecord,
  eventTypes,
  testEventType,
  webhookCreateBody,
  webhookCreated,
  webhookIdParams,
  webhookList,
  webhookRecord,
  webhookUpdateBody,
} from './webhooks-schema.js';

const tag = 'Webhooks';
const read = { scope: 'webhooks', access: 'read' } as const;
const write = { scope: 'webhooks', access: 'write' } as const;

const deliveryDescription =
  `Event types: ${eventTypes.join(', ')} (and ${testEventType} from the test endpoint). Body: {id: evt_..., type, created_at, data}, ` +
  'where data.object is the resource (an Alert, a Database, an Optimization) and, for database.status_changed, data.previous_attributes.status the status before ' +
  "(each event type's body and headers: the document's webhooks). " +
  'Events are written to a durable outbox in the transaction of the change they report and survive restarts. ' +
  'Each attempt is a POST signed the Standard Webhooks way: webhook-id (the event id, the same on every retry), webhook-timestamp (Unix seconds of the attempt), ' +
  'webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body" keyed with the base64-decoded secret after whsec_>. ' +
  'A 2xx answer within 15 s is success; anything else is retried with exponential backoff and full jitter (10 s doubling to at most 2 h) for at least 24 h after the event, ' +
  'never sooner than a Retry-After; 410 Gone fails the delivery and disables the endpoint (disabled_reason: gone). Redirects are not followed. ' +
  'Deliveries to a disabled endpoint wait until it is enabled again.';

export function webhooksRoutes(webhooks: WebhooksService, now: () => Date): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/webhooks',
      operationId: 'listWebhooks',
      summary: 'List webhook endpoints',
      tag,
      auth: read,
      query: z.strictObject(pagingQuery),
      responses: { 200: { description: 'A page of webhook endpoints', schema: webhookList }, ...errorResponses },
      handler: (ctx, { query, principal }) => {
        const window = pageWindow(query);
        const { rows, total } = webhooks.list(principal.orgId, window.limit, window.offset);
        sendList(ctx, rows.map(presentWebhook), total, query);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhooks',
      operationId: 'createWebhook',
      summary: 'Register a webhook endpoint; the answer carries its signing secret, shown this once only',
      description: deliveryDescription,
      tag,
      auth: write,
      body: webhookCreateBody,
      responses: { 201: { description: 'The new endpoint with its secret', schema: webhookCreated }, ...errorResponses },
      handler: async (ctx, { body, principal }) => {
        const { row, secret } = await webhooks.create(principal.orgId, body, now());
        ctx.status = 201;
        ctx.set('Location', `/v1/webhooks/${row.id}`);
        ctx.body = { ...presentWebhook(row), secret };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/{id}',
      operationId: 'getWebhook',
      summary: 'Read a webhook endpoint (never its secret)',
      tag,
      auth: read,
      params: webhookIdParams,
      responses: { 200: { description: 'The endpoint', schema: webhookRecord }, ...errorResponses },
      handler: (ctx, { params, principal }) => {
        ctx.body = presentWebhook(webhooks.get(principal.orgId, params.id));
      },
    }),
    defineRoute({
      method: 'put',
      path: '/v1/webhooks/{id}',
      operationId: 'updateWebhook',
      summary: 'Update a webhook endpoint; given fields are merged, enabling it clears disabled_reason',
      tag,
      auth: write,
      params: webhookIdParams,
      body: webhookUpdateBody,
      responses: { 200: { description: 'The updated endpoint', schema: webhookRecord }, ...errorResponses },
      handler: async (ctx, { params, body, principal }) => {
        ctx.body = presentWebhook(await webhooks.update(principal.orgId, params.id, body, now()));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/webhooks/{id}',
      operationId: 'deleteWebhook',
      summary: 'Remove a webhook endpoint with its pending and past deliveries',
      tag,
      auth: write,
      params: webhookIdParams,
      responses: { 204: { description: 'Removed' }, ...errorResponses },
      handler: (ctx, { params, principal }) => {
        webhooks.delete(principal.orgId, params.id);
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhooks/{id}/test',
      operationId: 'testWebhook',
      summary: `Queue a ${testEventType} event for this endpoint alone; it is signed, delivered and retried like any event`,
      description: 'Answers 202 with the pending delivery; follow it with GET /v1/webhooks/{id}/deliveries. A disabled endpoint gives 409 webhook_disabled.',
      tag,
      auth: write,
      params: webhookIdParams,
      responses: {
        202: { description: 'The queued delivery', schema: deliveryRecord },
        ...errorResponses,
        409: { description: 'The endpoint is disabled', schema: errorBody },
      },
      handler: (ctx, { params, principal }) => {
        const { delivery, attempts } = webhooks.test(principal.orgId, params.id, now());
        ctx.status = 202;
        ctx.body = presentDelivery(delivery, attempts);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/{id}/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'Deliveries to this endpoint, newest first, each with its attempts (status, response code, error, next retry)',
      tag,
      auth: read,
      params: webhookIdParams,
      query: deliveryListQuery,
      responses: { 200: { description: 'A page of deliveries', schema: deliveryList }, ...errorResponses },
      handler: (ctx, { params, query, principal }) => {
        const window = pageWindow(query);
        const { rows, total } = webhooks.deliveries(principal.orgId, params.id, query.status, window.limit, window.offset);
        sendList(ctx, rows.map(({ delivery, attempts }) => presentDelivery(delivery, attempts)), total, query);
      },
    }),
  ];
}
