import { AddressLimit } from '../throttling/address-limit.js';
import type { ThrottleDecision } from '../throttling/throttled-error.js';
import { WindowedCounter } from '../throttling/windowed-counter.js';

export const resetMailsPerAccount = 3;
export const resetRequestsPerAddress = 10;
const resetWindowMs = 3_600_000;

/**
 * Limits on "forgot password" requests, in one-hour windows: a client address (IPv6 per /64) may
 * ask 10 times whatever the emails it names, and an account gets at most 3 mails. The address's
 * limit is told (it says nothing about any account); the account's is silent, so the answer never
 * shows whether an email has an account.
 */
export class ResetRequestLimit {
  readonly #addresses = new AddressLimit(resetRequestsPerAddress, resetWindowMs);
  readonly #accounts = new WindowedCounter(resetWindowMs);

  /** Counts a request from `ip`, or refuses it when the address has used its requests. */
  request(ip: string, nowMs: number): ThrottleDecision {
    return this.#addresses.take(ip, nowMs);
  }

  /** Counts a mail to the user, or says there have been enough this hour. */
  mail(userId: string, nowMs: number): boolean {
    if ((this.#accounts.current(userId, nowMs)?.count ?? 0) >= resetMailsPerAccount) return false;
    this.#accounts.add(userId, nowMs, 1);
    return true;
  }
}
