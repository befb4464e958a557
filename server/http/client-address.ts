import type { Middleware } from 'koa';
import type { TrustedProxies } from './trusted-proxies.js';

/** Sets `ctx.ip` to the client's address as the trusted proxies report it (the peer's address without any). */
export function clientAddress(trustedProxies: TrustedProxies): Middleware {
  return (ctx, next) => {
    ctx.request.ip = trustedProxies.clientAddress(ctx.req.socket.remoteAddress ?? '', ctx.get('X-Forwarded-For'));
    return next();
  };
}
