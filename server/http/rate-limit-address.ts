import { expandIpv6 } from '../net/expand-ipv6.js';
import { canonicalAddress } from '../net/address-range.js';

/**
 * Who an unauthenticated request is counted against: an IPv4 address as it is (an IPv4-mapped
 * IPv6 address, as a dual-stack socket reports IPv4 clients, read as its IPv4 form), an IPv6
 * address by its /64, which is what one subscriber or host is routinely given.
 */
export function rateLimitAddress(ip: string): string {
  const address = canonicalAddress(ip);
  const groups = expandIpv6(address);
  if (groups === undefined) return address;
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}
