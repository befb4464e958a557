import { isIP } from 'node:net';
import type { CityResponse, Reader } from 'maxmind';
import { canonicalAddress } from '../../net/address-range.js';
import { AddressSet } from '../../net/address-set.js';

/** Where a session's address is: its network kind, and for a public address what the GeoIP database says. */
export interface SessionLocation {
  network: 'loopback' | 'private' | 'public';
  country_code: string | null;
  country: string | null;
  city: string | null;
}

/** The location of a client address; null when there is no GeoIP database or it knows nothing of the address. */
export type LocateAddress = (ip: string) => SessionLocation | null;

const loopback = new AddressSet(['127.0.0.0/8', '::1/128']);
/** RFC 1918, shared (CGNAT), link-local and IPv6 unique-local and link-local: nothing a GeoIP database places. */
const privateNetworks = new AddressSet(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', 'fc00::/7', 'fe80::/10']);

const nowhere = { country_code: null, country: null, city: null };

/**
 * Locates addresses with `geoip.database` (a MaxMind-format City or Country database, read with
 * MaxMind's reader); without one only loopback and private addresses are told apart.
 */
export function sessionLocator(database: Reader<CityResponse> | undefined): LocateAddress {
  return (ip) => {
    const address = canonicalAddress(ip);
    if (isIP(address) === 0) return null;
    if (loopback.has(address)) return { network: 'loopback', ...nowhere };
    if (privateNetworks.has(address)) return { network: 'private', ...nowhere };
    const found = database?.get(address);
    if (found === undefined || found === null || (found.country === undefined && found.city === undefined)) return null;
    return {
      network: 'public',
      country_code: found.country?.iso_code ?? null,
      country: found.country?.names.en ?? null,
      city: found.city?.names.en ?? null,
    };
  };
}
