import { isIP } from 'node:net';

export interface AddressRange {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** An address or CIDR range (`10.0.0.0/8`, `::1`); an IPv4-mapped IPv6 one as its IPv4 form. Undefined when it is neither. */
export function parseAddressRange(text: string): AddressRange | undefined {
  const [address = '', prefixText, ...rest] = text.trim().split('/');
  const version = isIP(address);
  if (rest.length > 0 || version === 0) return undefined;
  const bits = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : /^[0-9]{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (!(prefix >= 0 && prefix <= bits)) return undefined;
  const ipv4 = version === 6 ? ipv4Form(address) : undefined;
  if (ipv4 !== undefined && prefix >= 96) return { address: ipv4, prefix: prefix - 96, family: 'ipv4' };
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) as its IPv4 form; any other address as it is. */
export function canonicalAddress(address: string): string {
  return ipv4Form(address) ?? address;
}

function ipv4Form(address: string): string | undefined {
  if (isIP(address) !== 6) return undefined;
  let hostname: string;
  try {
    // The URL parser writes an IPv6 address in its one canonical form, so every spelling of a mapped address matches one pattern.
    hostname = new URL(`http://[${address}]/`).hostname;
  } catch {
    return undefined;
  }
  const match = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(hostname);
  if (match === null) return undefined;
  const high = parseInt(match[1]!, 16);
  const low = parseInt(match[2]!, 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}
