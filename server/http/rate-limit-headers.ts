import type { Context } from 'koa';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix seconds when the window ends. */
  resetAt: number;
  allowed: boolean;
}

/** The contract's X-RateLimit-* headers, and Retry-After (seconds) when refused. */
export function sendRateLimitHeaders(ctx: Context, decision: RateLimitState, nowMs: number): void {
  ctx.set('X-RateLimit-Limit', String(decision.limit));
  ctx.set('X-RateLimit-Remaining', String(decision.remaining));
  ctx.set('X-RateLimit-Reset', String(decision.resetAt));
  if (!decision.allowed) ctx.set('Retry-After', String(Math.max(0, decision.resetAt - Math.floor(nowMs / 1000))));
}
