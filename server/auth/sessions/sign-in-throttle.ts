import { rateLimitAddress } from '../../http/rate-limit-address.js';

export const signInAttemptLimit = 10;
export const signInWindowMs = 15 * 60_000;
/** Accounts or addresses tracked per counter; beyond, the least recently seen are forgotten (they can only get a fresh count). */
const maxTracked = 10_000;

interface Count {
  windowStartMs: number;
  failures: number;
}

/** Failed attempts per key in windows that start at the key's first failure. */
class FailureCounter {
  /** In order of last use, oldest first (a Map keeps insertion order). */
  readonly #counts = new Map<string, Count>();

  current(key: string, nowMs: number): Count | undefined {
    const count = this.#counts.get(key);
    if (count === undefined || nowMs - count.windowStartMs >= signInWindowMs) return undefined;
    return count;
  }

  add(key: string, nowMs: number, delta: number): void {
    const count = this.current(key, nowMs) ?? { windowStartMs: nowMs, failures: 0 };
    count.failures = Math.max(0, count.failures + delta);
    this.#counts.delete(key);
    this.#counts.set(key, count);
    if (this.#counts.size > maxTracked) this.#counts.delete(this.#counts.keys().next().value!);
  }
}

export interface ThrottleDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the busiest of the two windows ends. */
  resetAt: number;
}

/**
 * Brute-force limits on password checks, whatever the plan: 10 failures per account and 10 per
 * client address (IPv6 per /64) in 15 minutes. An attempt counts as a failure from the moment it
 * starts and is given back when it succeeds, so parallel guesses cannot all pass the check before
 * any of them is counted.
 */
export class SignInThrottle {
  readonly #accounts = new FailureCounter();
  readonly #addresses = new FailureCounter();

  /** Counts the attempt, or refuses it when the account or the address has no attempts left. */
  begin(email: string, ip: string, nowMs: number): ThrottleDecision {
    const keys = this.#keys(email, ip);
    const counts = [this.#accounts.current(keys.account, nowMs), this.#addresses.current(keys.address, nowMs)];
    const used = Math.max(...counts.map((count) => count?.failures ?? 0));
    const resetAt = Math.ceil(Math.max(...counts.map((count) => (count?.windowStartMs ?? nowMs) + signInWindowMs)) / 1000);
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
