import { expandIpv6 } from '../net/expand-ipv6.js';

/**
 * Who an unauthenticated request is counted against: an IPv4 address as it is (an IPv4-mapped
 * IPv6 address, as a dual-stack socket reports IPv4 clients, included), an IPv6 address by its
 * /64, which is what one subscriber or host is routinely given.
 */
export function rateLimitAddress(ip: string): string {
  const groups = expandIpv6(ip);
  if (groups === undefined) return ip;
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (mapped) return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}
