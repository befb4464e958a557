import { rateLimitAddress } from '../../http/rate-limit-address.js';
import type { ThrottleDecision } from './throttled-error.js';
import { WindowedCounter } from './windowed-counter.js';

/** At most `limit` requests per client address (IPv6 per /64) in windows of `windowMs`, in memory. */
export class AddressLimit {
  readonly #addresses: WindowedCounter;

  constructor(
    readonly limit: number,
    windowMs: number,
  ) {
    this.#addresses = new WindowedCounter(windowMs);
  }

  /** Counts a request from `ip`, or refuses it when the address has used its requests. */
  take(ip: string, nowMs: number): ThrottleDecision {
    const address = rateLimitAddress(ip);
    const used = this.#addresses.current(address, nowMs)?.count ?? 0;
    const resetAt = this.#addresses.resetAt(address, nowMs);
    if (used >= this.limit) return { allowed: false, limit: this.limit, remaining: 0, resetAt };
    this.#addresses.add(address, nowMs, 1);
    return { allowed: true, limit: this.limit, remaining: this.limit - used - 1, resetAt };
  }
}
