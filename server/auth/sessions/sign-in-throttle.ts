import { rateLimitAddress } from '../../http/rate-limit-address.js';
import type { ThrottleDecision } from '../throttling/throttled-error.js';
import { WindowedCounter } from '../throttling/windowed-counter.js';

export const signInAttemptLimit = 10;
export const signInWindowMs = 15 * 60_000;

/**
 * Brute-force limits on password checks, whatever the plan: 10 failures per account and 10 per
 * client address (IPv6 per /64) in 15 minutes. An attempt counts as a failure from the moment it
 * starts and is given back when it succeeds, so parallel guesses cannot all pass the check before
 * any of them is counted.
 */
export class SignInThrottle {
  readonly #accounts = new WindowedCounter(signInWindowMs);
  readonly #addresses = new WindowedCounter(signInWindowMs);

  /** Counts the attempt, or refuses it when the account or the address has no attempts left. */
  begin(email: string, ip: string, nowMs: number): ThrottleDecision {
    const keys = this.#keys(email, ip);
    const used = Math.max(this.#accounts.current(keys.account, nowMs)?.count ?? 0, this.#addresses.current(keys.address, nowMs)?.count ?? 0);
    const resetAt = Math.max(this.#accounts.resetAt(keys.account, nowMs), this.#addresses.resetAt(keys.address, nowMs));
    if (used >= signInAttemptLimit) return { allowed: false, limit: signInAttemptLimit, remaining: 0, resetAt };
    this.#accounts.add(keys.account, nowMs, 1);
    this.#addresses.add(keys.address, nowMs, 1);
    return { allowed: true, limit: signInAttemptLimit, remaining: signInAttemptLimit - used - 1, resetAt };
  }

  /** The attempt begun was right: it is no failure. */
  succeeded(email: string, ip: string, nowMs: number): void {
    const keys = this.#keys(email, ip);
    this.#accounts.add(keys.account, nowMs, -1);
    this.#addresses.add(keys.address, nowMs, -1);
  }

  #keys(email: string, ip: string) {
    return { account: email.toLowerCase(), address: rateLimitAddress(ip) };
  }
}
