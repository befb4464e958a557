import type { Middleware } from 'koa';
import { MethodNotAllowedError, NoRouteError } from '../errors.js';

/** The router answers unknown paths and methods with bare statuses; give them the contract's error body. */
export function unmatched(): Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.body !== undefined && ctx.body !== null) return;
    if (ctx.status === 405 || ctx.status === 501) {
      throw new MethodNotAllowedError(ctx.response.get('Allow').split(/,\s*/).filter(Boolean));
    }
    if (ctx.status === 404) throw new NoRouteError(`No route ${ctx.method} ${ctx.path}`);
  };
}
