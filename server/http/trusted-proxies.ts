import { isIP } from 'node:net';
import { canonicalAddress } from '../net/address-range.js';
import { AddressSet } from '../net/address-set.js';

/** The reverse proxies (`server.trusted_proxies`) whose X-Forwarded-For entries are believed. */
export class TrustedProxies {
  readonly #proxies: AddressSet;
  /** A range that covers every address of a family (`0.0.0.0/0`, `::/0`): any client can then forge its address. */
  readonly openToAll: boolean;

  constructor(ranges: readonly string[]) {
    this.#proxies = new AddressSet(ranges);
    this.openToAll = this.#proxies.coversAFamily;
  }

  /**
   * The client's address. The connection's peer is the last hop; while that hop is a trusted proxy,
   * the entry it appended to X-Forwarded-For (the rightmost one not yet used) is believed as the
   * hop before it. The first hop that is no trusted proxy is the client; anything left of it
   * could have been written by the client itself. A malformed entry ends the walk at the last believed hop.
   */
  clientAddress(peer: string, forwardedFor: string): string {
    let client = canonicalAddress(peer);
    let hops: string[] | undefined;
    while (this.#proxies.has(client)) {
      hops ??= forwardedFor.split(',').map((hop) => hop.trim()).filter((hop) => hop !== '');
      const hop = hops.pop();
      if (hop === undefined || isIP(hop) === 0) break;
      client = canonicalAddress(hop);
    }
    return client;
  }
}
