import type { Plan } from '../auth/identity/plans.js';

export const planHourlyLimits: Record<Plan, number> = { free: 100, pro: 1000, enterprise: 10000 };

const windowSeconds = 3600;

/** Client addresses tracked per window; beyond, the least recently seen are forgotten. */
export const defaultMaxAddresses = 10_000;

export interface RateDecision {
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window ends. */
  resetAt: number;
  allowed: boolean;
}

/**
 * Fixed one-hour windows aligned to the clock hour. Counters live in memory: one process serves the
 * API, and a restart can only hand callers a fresh window, never refuse one wrongly.
 *
 * Principals (users and service accounts, stored identities) are counted exactly. Client addresses
 * are anyone's to invent, so they are kept apart and bounded: a flood of new addresses makes the
 * limiter forget the least recently seen addresses (which can then only get a fresh count), never a
 * principal's count, and never grows past `maxAddresses` entries.
 */
export class RateLimiter {
  readonly #principals = new Map<string, number>();
  /** In order of last use, oldest first (a Map keeps insertion order). */
  readonly #addresses = new Map<string, number>();
  #windowStart = 0;

  constructor(private readonly maxAddresses = defaultMaxAddresses) {}

  takeForPrincipal(bucket: string, limit: number, nowMs: number): RateDecision {
    return this.#take(this.#principals, bucket, limit, nowMs);
  }

  takeForAddress(bucket: string, limit: number, nowMs: number): RateDecision {
    const decision = this.#take(this.#addresses, bucket, limit, nowMs);
    if (this.#addresses.size > this.maxAddresses) this.#forgetOldestAddresses();
    return decision;
  }

  get trackedAddresses(): number {
    return this.#addresses.size;
  }

  /**
   * Forgets the least recently seen tenth at once: a Map leaves deleted entries at its front until it
   * rehashes, so a fresh iterator for every single eviction would step over them again each time.
   */
  #forgetOldestAddresses(): void {
    let excess = this.#addresses.size - Math.ceil(this.maxAddresses * 0.9);
    for (const bucket of this.#addresses.keys()) {
      if (excess-- <= 0) break;
      this.#addresses.delete(bucket);
    }
  }

  #take(counts: Map<string, number>, bucket: string, limit: number, nowMs: number): RateDecision {
    const windowStart = Math.floor(nowMs / 1000 / windowSeconds) * windowSeconds;
    if (windowStart !== this.#windowStart) {
      this.#principals.clear();
      this.#addresses.clear();
      this.#windowStart = windowStart;
    }
    const used = (counts.get(bucket) ?? 0) + 1;
    const allowed = used <= limit;
    // Addresses are kept in order of last use, for their forgetting (principals are never forgotten):
    // deleted and set again below, a bucket moves to the end.
    if (counts === this.#addresses) counts.delete(bucket);
    counts.set(bucket, Math.min(used, limit));
    return { limit, remaining: Math.max(0, limit - Math.min(used, limit)), resetAt: windowStart + windowSeconds, allowed };
  }
}

export function hourlyLimit(plan: Plan, customHourlyLimit: number | null): number {
  return customHourlyLimit ?? planHourlyLimits[plan];
}
