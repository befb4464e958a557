import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { AuthenticationError } from '../errors.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { errorBody } from '../openapi/error-responses.js';
import type { ServerMetrics } from './server-metrics.js';

/** Prometheus scrape endpoint; with `metrics.token` set it wants that bearer token, compared in constant time. */
export function metricsEndpointRoutes(metrics: ServerMetrics, token: string | undefined): RouteDefinition[] {
  const expected = token === undefined ? undefined : digest(token);
  return [
    defineRoute({
      method: 'get',
      path: '/metrics',
      operationId: 'prometheusMetrics',
      summary: 'Prometheus text exposition of the server and of every monitored database',
      tag: 'Health',
      auth: 'public',
      responses: {
        200: { description: 'Prometheus text exposition format 0.0.4', schema: z.string(), contentType: 'text/plain; version=0.0.4' },
        401: { description: 'metrics.token is set and the bearer token is missing or wrong', schema: errorBody },
      },
      handler: async (ctx) => {
        if (expected !== undefined) {
          const given = /^Bearer (\S+)$/.exec(ctx.get('Authorization'))?.[1];
          if (given === undefined || !timingSafeEqual(digest(given), expected)) {
            throw new AuthenticationError('invalid_metrics_token', 'The metrics endpoint needs its bearer token');
          }
        }
        ctx.type = metrics.registry.contentType;
        ctx.body = await metrics.metrics();
      },
    }),
  ];
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
