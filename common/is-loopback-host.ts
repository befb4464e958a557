import { BlockList, isIP } from 'node:net';

/**
 * True when a URL's hostname (IPv6 in brackets or not) names this machine: `localhost` or a
 * loopback address (127.0.0.0/8, ::1, and their IPv4-mapped forms). Other names are not resolved.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (host.toLowerCase() === 'localhost') return true;
  const family = isIP(host);
  if (family === 0) return false;
  const loopback = new BlockList();
  loopback.addSubnet('127.0.0.0', 8, 'ipv4');
  loopback.addAddress('::1', 'ipv6');
  return loopback.check(host, family === 4 ? 'ipv4' : 'ipv6');
}
