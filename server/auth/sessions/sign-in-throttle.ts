import { rateLimitAddress } from '../../http/rate-limit-address.js';
import { FailureThrottle } from '../throttling/failure-throttle.js';
import type { ThrottleDecision } from '../throttling/throttled-error.js';

export const signInAttemptLimit = 10;
export const signInWindowMs = 15 * 60_000;

/** Brute-force limits on password checks, whatever the plan: 10 failures per account and 10 per client address (IPv6 per /64) in 15 minutes. */
export class SignInThrottle {
  readonly #failures = new FailureThrottle(signInAttemptLimit, signInWindowMs);

  /** Counts the attempt, or refuses it when the account or the address has no attempts left. */
  begin(email: string, ip: string, nowMs: number): ThrottleDecision {
    return this.#failures.begin(keys(email, ip), nowMs);
  }

  /** The attempt begun was right: it is no failure. */
  succeeded(email: string, ip: string, nowMs: number): void {
    this.#failures.succeeded(keys(email, ip), nowMs);
  }
}

function keys(email: string, ip: string): string[] {
  return [`account:${email.toLowerCase()}`, `address:${rateLimitAddress(ip)}`];
}
