import { rateLimitAddress } from '../../http/rate-limit-address.js';
import type { ThrottleDecision } from '../throttling/throttled-error.js';
import { WindowedCounter } from '../throttling/windowed-counter.js';

export const providerStartsPerAddress = 60;
const startWindowMs = 15 * 60_000;

/**
 * Sign-ins a client address (IPv6 per /64) may start in 15 minutes: each holds a place among the
 * sign-ins in flight and may cost a request to the provider, so one address cannot push out everyone
 * else's or make this server a relay of requests to the provider.
 */
export class ProviderStartLimit {
  readonly #addresses = new WindowedCounter(startWindowMs);

  start(ip: string, nowMs: number): ThrottleDecision {
    const address = rateLimitAddress(ip);
    const used = this.#addresses.current(address, nowMs)?.count ?? 0;
    const resetAt = this.#addresses.resetAt(address, nowMs);
    if (used >= providerStartsPerAddress) return { allowed: false, limit: providerStartsPerAddress, remaining: 0, resetAt };
    this.#addresses.add(address, nowMs, 1);
    return { allowed: true, limit: providerStartsPerAddress, remaining: providerStartsPerAddress - used - 1, resetAt };
  }
}
