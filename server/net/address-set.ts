import { BlockList, isIP } from 'node:net';
import { canonicalAddress, parseAddressRange } from './address-range.js';

/**
 * A set of addresses and CIDR ranges (IPv4, IPv6), parsed once. IPv4-mapped IPv6 addresses match
 * their IPv4 form, whether in the set or asked about. The one matcher of the trusted proxies and
 * the organizations' allowlists.
 */
export class AddressSet {
  readonly #ranges = new BlockList();
  /** A range that covers every address of a family (`0.0.0.0/0`, `::/0`). */
  readonly coversAFamily: boolean;
  readonly size: number;

  /** Throws RangeError on an entry that is no address or CIDR range. */
  constructor(entries: readonly string[]) {
    const parsed = entries.map((text) => {
      const range = parseAddressRange(text);
      if (range === undefined) throw new RangeError(`not an address or CIDR range: ${text}`);
      return range;
    });
    for (const { address, prefix, family } of parsed) this.#ranges.addSubnet(address, prefix, family);
    this.coversAFamily = parsed.some((range) => range.prefix === 0);
    this.size = parsed.length;
  }

  /** False for anything that is no address. */
  has(ip: string): boolean {
    // No entries (no trusted proxies, the usual case): every request would otherwise pay BlockList's parse of its address.
    if (this.size === 0) return false;
    const address = canonicalAddress(ip);
    const family = isIP(address);
    return family !== 0 && this.#ranges.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}
