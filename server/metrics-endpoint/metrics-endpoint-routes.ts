import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { z } from 'zod';
import { databaseIdParams } from '../databases/databases-schema.js';
import { AuthenticationError, NotFoundError } from '../errors.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { errorBody } from '../openapi/error-responses.js';
import { scrapeTargetGroup, scrapeTargets } from './scrape-targets.js';
import type { ServerMetrics } from './server-metrics.js';

const exposition = { description: 'Prometheus text exposition format 0.0.4', schema: z.string(), contentType: 'text/plain; version=0.0.4' };
const wrongToken = { description: 'metrics.token is set and the bearer token is missing or wrong', schema: errorBody };

/**
 * Prometheus scrape endpoints: the fleet and the server on `/metrics`, each database as its own
 * target, and the service discovery document listing those targets. With `metrics.token` set
 * each wants that bearer token, compared in constant time.
 */
export function metricsEndpointRoutes(metrics: ServerMetrics, token: string | undefined): RouteDefinition[] {
  const expected = token === undefined ? undefined : digest(token);
  const requireToken = (ctx: Context) => {
    if (expected === undefined) return;
    const given = /^Bearer (\S+)$/.exec(ctx.get('Authorization'))?.[1];
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      throw new AuthenticationError('invalid_metrics_token', 'The metrics endpoint needs its bearer token');
    }
  };
  return [
    defineRoute({
      method: 'get',
      path: '/metrics',
      operationId: 'prometheusMetrics',
      summary: 'Prometheus text exposition of the server and of every monitored database',
      tag: 'Health',
      auth: 'public',
      responses: { 200: exposition, 401: wrongToken },
      handler: async (ctx) => {
        requireToken(ctx);
        ctx.type = metrics.registry.contentType;
        ctx.body = await metrics.metrics();
      },
    }),
    defineRoute({
      method: 'get',
      path: '/metrics/targets',
      operationId: 'prometheusTargets',
      summary: "Every monitored database as a scrape target, in Prometheus's http_sd format",
      tag: 'Health',
      auth: 'public',
      responses: { 200: { description: 'HTTP service discovery document', schema: z.array(scrapeTargetGroup) }, 401: wrongToken },
      handler: (ctx) => {
        requireToken(ctx);
        ctx.body = scrapeTargets(metrics.databases());
      },
    }),
    defineRoute({
      method: 'get',
      path: '/metrics/databases/{id}',
      operationId: 'prometheusDatabaseMetrics',
      summary: "One database's series with the exporters' names and labels only, for a target of its own",
      tag: 'Health',
      auth: 'public',
      params: databaseIdParams,
      responses: { 200: exposition, 401: wrongToken, 404: { description: 'No such database', schema: errorBody } },
      handler: (ctx, { params }) => {
        requireToken(ctx);
        const text = metrics.databaseMetrics(params.id);
        if (text === undefined) throw new NotFoundError(`No database ${params.id}`, 'id');
        ctx.type = metrics.registry.contentType;
        ctx.body = text;
      },
    }),
  ];
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
