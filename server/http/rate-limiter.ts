import type { Plan } from '../auth/identity/organizations-repository.js';

export const planHourlyLimits: Record<Plan, number> = { free: 100, pro: 1000, enterprise: 10000 };

const windowSeconds = 3600;

export interface RateDecision {
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window ends. */
  resetAt: number;
  allowed: boolean;
}

/**
 * Fixed one-hour windows aligned to the clock hour, counted per bucket (a credential id, or a client
 * address for unauthenticated calls). Counters live in memory: one process serves the API, and a
 * restart can only hand callers a fresh window, never refuse one wrongly.
 */
export class RateLimiter {
  readonly #counts = new Map<string, number>();
  #windowStart = 0;

  take(bucket: string, limit: number, nowMs: number): RateDecision {
    const windowStart = Math.floor(nowMs / 1000 / windowSeconds) * windowSeconds;
    if (windowStart !== this.#windowStart) {
      this.#counts.clear();
      this.#windowStart = windowStart;
    }
    const used = (this.#counts.get(bucket) ?? 0) + 1;
    const allowed = used <= limit;
    if (allowed) this.#counts.set(bucket, used);
    return { limit, remaining: Math.max(0, limit - Math.min(used, limit)), resetAt: windowStart + windowSeconds, allowed };
  }
}

export function hourlyLimit(plan: Plan, customHourlyLimit: number | null): number {
  return customHourlyLimit ?? planHourlyLimits[plan];
}
