import { BlockList, isIP } from 'node:net';
import { canonicalAddress, parseAddressRange } from '../../http/trusted-proxies.js';

/** The organization's `ip_allowlist`: addresses and CIDR ranges, IPv4-mapped IPv6 ones matching their IPv4 form. Empty allows all. */
export class IpAllowlist {
  readonly #ranges = new BlockList();
  readonly #empty: boolean;

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const range = parseAddressRange(entry);
      if (range === undefined) throw new RangeError(`not an address or CIDR range: ${entry}`);
      this.#ranges.addSubnet(range.address, range.prefix, range.family);
    }
    this.#empty = entries.length === 0;
  }

  allows(ip: string): boolean {
    if (this.#empty) return true;
    const address = canonicalAddress(ip);
    const family = isIP(address);
    return family !== 0 && this.#ranges.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}
