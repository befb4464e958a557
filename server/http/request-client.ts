import type { Context } from 'koa';

/** Where a request comes from: the client address (as the trusted proxies report it) and its User-Agent. */
export interface RequestClient {
  ip: string;
  userAgent: string;
}

export function requestClient(ctx: Context): RequestClient {
  return { ip: ctx.ip, userAgent: ctx.get('User-Agent') };
}
