import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';

const acceptable = /^[A-Za-z0-9._-]{8,128}$/;

/** Keeps a caller's well-formed X-Request-Id (for tracing across proxies), otherwise makes one. */
export function requestId(): Middleware {
  return (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const id = incoming !== '' && acceptable.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    return next();
  };
}
