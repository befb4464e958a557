export interface BackoffPolicy {
  /** Delay ceiling of the first retry. */
  baseMs: number;
  /** No delay is ever longer than this. */
  capMs: number;
}

export const defaultBackoff: BackoffPolicy = Object.freeze({ baseMs: 1000, capMs: 60_000 });

/**
 * Exponential backoff with full jitter (AWS architecture blog, "Exponential Backoff and
 * Jitter"): a uniform delay in [0, min(cap, base * 2^attempt)). `attempt` counts from 0;
 * `random` is Math.random or a test's own.
 */
export function fullJitterDelay(attempt: number, policy: BackoffPolicy, random: () => number): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}
