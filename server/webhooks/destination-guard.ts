import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { expandIpv6 } from '../net/expand-ipv6.js';

/** A webhook destination that resolves to an address the server may not send to. */
export class DestinationRefusedError extends Error {
  readonly code = 'EDESTINATIONREFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'DestinationRefusedError';
  }
}

/** Checks a destination before it is stored; DestinationGuard is the real one. */
export interface DestinationChecker {
  check(url: URL): Promise<void>;
}

type Resolve = (hostname: string) => Promise<LookupAddress[]>;

const nonPublic = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['fc00::', 7], // unique-local
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], // documentation
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv6');
}

/** True for an address on the public internet; IPv4-mapped and NAT64 IPv6 addresses are judged by their IPv4 part. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !nonPublic.check(address, 'ipv4');
  if (family !== 6) return false;
  const embedded = embeddedIpv4(address);
  if (embedded !== undefined) return isPublicAddress(embedded);
  return !nonPublic.check(address, 'ipv6');
}

/**
 * Refuses webhook destinations that resolve to loopback, link-local, private, unique-local,
 * multicast or unspecified addresses, unless private targets are allowed. A host name must
 * resolve, and every address it resolves to must pass. `lookup` is given to http.request, so
 * the connection goes to an address checked at that moment (no DNS rebinding between check and connect).
 */
export class DestinationGuard implements DestinationChecker {
  constructor(
    private readonly allowPrivateTargets: boolean,
    private readonly resolve: Resolve = defaultResolve,
  ) {}

  async check(url: URL): Promise<void> {
    const host = hostOf(url);
    if (isIP(host) !== 0) {
      this.#vet(host, [host]);
      return;
    }
    let addresses: LookupAddress[];
    try {
      addresses = await this.resolve(host);
    } catch (error) {
      throw new DestinationRefusedError(`${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})`);
    }
    this.#vet(host, addresses.map((entry) => entry.address));
  }

  /** For http.request: resolves, refuses a non-public answer, hands back the checked addresses. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolve(hostname).then(
      (addresses) => {
        try {
          this.#vet(hostname, addresses.map((entry) => entry.address));
        } catch (error) {
          callback(error as NodeJS.ErrnoException, '', 4);
          return;
        }
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((entry) => entry.family === options.family) : addresses;
        if (wanted.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: 'ENOTFOUND' }), '', 4);
        } else if (options.all) {
          (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, wanted);
        } else {
          callback(null, wanted[0]!.address, wanted[0]!.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 4),
    );
  };

  #vet(host: string, addresses: readonly string[]): void {
    if (addresses.length === 0) throw new DestinationRefusedError(`${host} resolves to no address`);
    if (this.allowPrivateTargets) return;
    const refused = addresses.find((address) => !isPublicAddress(address));
    if (refused !== undefined) {
      throw new DestinationRefusedError(
        `${host} resolves to ${refused}, a loopback, link-local, private or otherwise non-public address; ` +
          'set webhooks.allow_private_targets (DBMON_WEBHOOKS_ALLOW_PRIVATE_TARGETS=true) to allow it',
      );
    }
  }
}

/** The host of a URL without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

function defaultResolve(hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });
}

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::/96) IPv6 address. */
function embeddedIpv4(address: string): string | undefined {
  const groups = expandIpv6(address);
  if (groups === undefined) return undefined;
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0);
  if (!mapped && !nat64) return undefined;
  return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
}
