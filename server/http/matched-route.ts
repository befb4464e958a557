import type { Context } from 'koa';

/**
 * What logs say about a request's path: the route it matched (`/invitations/:token`), never the
 * raw path or query string, which may hold ids and one-time tokens.
 */
export function matchedRoute(ctx: Context): string {
  return (ctx._matchedRoute as string | undefined) ?? 'unmatched';
}
