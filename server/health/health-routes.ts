import { z } from 'zod';
import { ApiError } from '../errors.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { errorBody } from '../openapi/error-responses.js';
import type { Db } from '../storage/open-database.js';

const status = z.object({ status: z.string() }).meta({ id: 'HealthStatus' });

export function healthRoutes(db: Db): RouteDefinition[] {
  const ping = db.prepare('SELECT 1');
  return [
    defineRoute({
      method: 'get',
      path: '/healthz',
      operationId: 'liveness',
      summary: 'Liveness: the process answers',
      tag: 'Health',
      auth: 'public',
      responses: { 200: { description: 'Alive', schema: status } },
      handler: (ctx) => {
        ctx.body = { status: 'ok' };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/readyz',
      operationId: 'readiness',
      summary: 'Readiness: storage answers',
      tag: 'Health',
      auth: 'public',
      responses: {
        200: { description: 'Ready', schema: status },
        503: { description: 'Storage unreachable', schema: errorBody },
      },
      handler: (ctx) => {
        try {
          ping.get();
        } catch {
          throw new ApiError(503, 'api_error', 'Storage is not reachable', 'storage_unavailable');
        }
        ctx.body = { status: 'ready' };
      },
    }),
  ];
}
