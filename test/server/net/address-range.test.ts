import t from 'tap';
import { canonicalAddress, parseAddressRange } from '../../../server/net/address-range.js';

t.test('ranges are addresses or CIDRs', async (t) => {
  t.same(parseAddressRange('10.0.0.0/8'), { address: '10.0.0.0', prefix: 8, family: 'ipv4' });
  t.same(parseAddressRange('::1'), { address: '::1', prefix: 128, family: 'ipv6' });
  t.same(parseAddressRange('::ffff:192.168.0.0/112'), { address: '192.168.0.0', prefix: 16, family: 'ipv4' });
  for (const bad of ['', 'proxy.example', '10.0.0.0/33', '10.0.0.0/', '10.0.0.0/8/8', '::/129', '10.0.0.0/-1', '10.0.0.0/08x']) {
    t.equal(parseAddressRange(bad), undefined, JSON.stringify(bad));
  }
});

t.test('canonical addresses: an IPv4-mapped IPv6 address in any spelling is its IPv4 form', async (t) => {
  for (const mapped of ['::ffff:192.0.2.1', '::FFFF:c000:0201', '0:0:0:0:0:ffff:192.0.2.1']) t.equal(canonicalAddress(mapped), '192.0.2.1', mapped);
  t.equal(canonicalAddress('2001:db8::1'), '2001:db8::1');
  t.equal(canonicalAddress('not an address'), 'not an address');
});
