import type { Middleware } from 'koa';
import type { Logger } from 'pino';

/** One line per request: id, method, matched route (never the query string, which may hold tokens), status, time. */
export function accessLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      logger.info(
        {
          requestId: ctx.state.requestId,
          method: ctx.method,
          route: ctx.routerPath ?? ctx.path,
          status: ctx.status,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request',
      );
    }
  };
}
