import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { ServerMetrics } from '../metrics-endpoint/server-metrics.js';
import { matchedRoute } from './matched-route.js';

/** One log line and one metrics observation per request: id, method, matched route, status, time. */
export function accessLog(logger: Logger, metrics: ServerMetrics): Middleware {
  return async (ctx, next) => {
    // A float of milliseconds rather than hrtime's BigInt, which allocates twice per request.
    const started = performance.now();
    try {
      await next();
    } finally {
      const seconds = (performance.now() - started) / 1000;
      const route = matchedRoute(ctx);
      metrics.observeRequest(ctx.method, route, ctx.status, seconds);
      logger.info({ requestId: ctx.state.requestId, method: ctx.method, route, status: ctx.status, ms: seconds * 1000 }, 'request');
    }
  };
}
