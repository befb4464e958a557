import type { ThrottleDecision } from './throttled-error.js';
import { WindowedCounter } from './windowed-counter.js';

/**
 * A brute-force limit: at most `limit` failures per key in windows of `windowMs`. An attempt counts
 * as a failure from the moment it begins and is given back when it succeeds, so parallel guesses
 * cannot all pass the check before any of them is counted.
 */
export class FailureThrottle {
  readonly #counts: WindowedCounter;

  constructor(
    readonly limit: number,
    windowMs: number,
  ) {
    this.#counts = new WindowedCounter(windowMs);
  }

  /** Counts the attempt against every key, or refuses it (counting nothing) when one of them has no failures left. */
  begin(keys: readonly string[], nowMs: number): ThrottleDecision {
    const used = Math.max(...keys.map((key) => this.#counts.current(key, nowMs)?.count ?? 0));
    const resetAt = Math.max(...keys.map((key) => this.#counts.resetAt(key, nowMs)));
    if (used >= this.limit) return { allowed: false, limit: this.limit, remaining: 0, resetAt };
    for (const key of keys) this.#counts.add(key, nowMs, 1);
    return { allowed: true, limit: this.limit, remaining: this.limit - used - 1, resetAt };
  }

  /** The attempt begun with these keys was right: it is no failure. */
  succeeded(keys: readonly string[], nowMs: number): void {
    for (const key of keys) this.#counts.add(key, nowMs, -1);
  }
}
