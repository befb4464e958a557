import type { Middleware } from 'koa';
import { RateLimitError } from '../errors.js';
import { actorId, type Principal } from '../auth/principal.js';
import type { AuthResult } from './authenticate.js';
import { rateLimitAddress } from './rate-limit-address.js';
import { sendRateLimitHeaders } from './rate-limit-headers.js';
import { hourlyLimit, planHourlyLimits, type RateLimiter } from './rate-limiter.js';

/**
 * An agent sends one batch per database and cycle plus an assignments refresh a minute; a free
 * plan's 100 an hour would delay samples for a single database, so agent buckets get at least this.
 */
export const agentHourlyFloor = 36_000;

/**
 * Counts per principal, with the plan's hourly limit: a user's personal tokens and sessions together, a service
 * account's keys together, so minting keys buys no more requests. Without a valid credential, per
 * client address (IPv6 per /64). Agent ingest has buckets of its own so dashboard use can never
 * stop monitoring. Endpoints with limits of their own (`ownLimitPaths`) are left to them.
 */
export function rateLimit(limiter: RateLimiter, now: () => Date, ownLimitPaths: ReadonlySet<string> = new Set()): Middleware {
  return (ctx, next) => {
    if (ownLimitPaths.has(ctx.path)) return next();
    const auth = ctx.state.auth as AuthResult | undefined;
    const principal = auth !== undefined && 'principal' in auth ? auth.principal : undefined;
    const family = ctx.path.startsWith('/v1/agent/') ? 'agent' : 'api';
    const nowMs = now().getTime();
    const decision =
      principal === undefined
        ? limiter.takeForAddress(`${family}:${rateLimitAddress(ctx.ip)}`, planHourlyLimits.free, nowMs)
        : limiter.takeForPrincipal(`${family}:${actorId(principal.actor)}`, principalLimit(principal, family), nowMs);
    sendRateLimitHeaders(ctx, decision, nowMs);
    if (!decision.allowed) throw new RateLimitError(decision.resetAt, Math.floor(nowMs / 1000));
    return next();
  };
}

function principalLimit(principal: Principal, family: 'agent' | 'api'): number {
  const planLimit = hourlyLimit(principal.plan, principal.customHourlyLimit);
  return family === 'agent' ? Math.max(planLimit, agentHourlyFloor) : planLimit;
}
