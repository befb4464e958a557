import { AddressSet } from '../../net/address-set.js';

/** The organization's `ip_allowlist`: addresses and CIDR ranges, IPv4-mapped IPv6 ones matching their IPv4 form. Empty allows all. */
export class IpAllowlist {
  readonly #addresses: AddressSet;

  constructor(entries: readonly string[]) {
    this.#addresses = new AddressSet(entries);
  }

  allows(ip: string): boolean {
    return this.#addresses.size === 0 || this.#addresses.has(ip);
  }
}
