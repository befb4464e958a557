import type { Middleware } from 'koa';
import { RateLimitError } from '../errors.js';
import type { AuthResult } from './authenticate.js';
import { hourlyLimit, planHourlyLimits, type RateLimiter } from './rate-limiter.js';

/**
 * An agent sends one batch per database and cycle plus an assignments refresh a minute; a free
 * plan's 100 an hour would delay samples for a single database, so agent buckets get at least this.
 */
export const agentHourlyFloor = 36_000;

/**
 * Counts per credential (per client address when there is none), with the plan's hourly limit.
 * Agent ingest has buckets of its own so dashboard use can never stop monitoring.
 */
export function rateLimit(limiter: RateLimiter, now: () => Date): Middleware {
  return async (ctx, next) => {
    const auth = ctx.state.auth as AuthResult | undefined;
    const principal = auth !== undefined && 'principal' in auth ? auth.principal : undefined;
    const family = ctx.path.startsWith('/v1/agent/') ? 'agent' : 'api';
    const bucket = principal === undefined ? `${family}:ip:${ctx.ip}` : `${family}:key:${principal.credentialId}`;
    const planLimit = principal === undefined ? planHourlyLimits.free : hourlyLimit(principal.plan, principal.customHourlyLimit);
    const limit = family === 'agent' && principal !== undefined ? Math.max(planLimit, agentHourlyFloor) : planLimit;
    const nowMs = now().getTime();
    const decision = limiter.take(bucket, limit, nowMs);
    ctx.set('X-RateLimit-Limit', String(decision.limit));
    ctx.set('X-RateLimit-Remaining', String(decision.remaining));
    ctx.set('X-RateLimit-Reset', String(decision.resetAt));
    if (!decision.allowed) {
      ctx.set('Retry-After', String(Math.max(0, decision.resetAt - Math.floor(nowMs / 1000))));
      throw new RateLimitError(decision.resetAt, Math.floor(nowMs / 1000));
    }
    await next();
  };
}
