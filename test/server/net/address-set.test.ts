import t from 'tap';
import { AddressSet } from '../../../server/net/address-set.js';

t.test('an address set matches addresses, CIDR ranges and IPv4-mapped forms both ways', async (t) => {
  const set = new AddressSet(['192.0.2.0/24', '::ffff:10.0.0.0/104', '2001:db8::/32', '198.51.100.7']);
  for (const member of ['192.0.2.255', '::ffff:192.0.2.1', '10.255.0.1', '2001:db8:ffff::1', '198.51.100.7']) t.ok(set.has(member), member);
  for (const stranger of ['192.0.3.1', '11.0.0.1', '2001:db9::1', '198.51.100.8', '::ffff:198.51.100.8', '', 'localhost']) t.notOk(set.has(stranger), stranger);
  t.equal(set.size, 4);
  t.notOk(set.coversAFamily);
  t.ok(new AddressSet(['::/0']).coversAFamily);
  t.notOk(new AddressSet([]).has('127.0.0.1'), 'an empty set holds nothing');
  t.throws(() => new AddressSet(['10.0.0.0/33']), RangeError);
});
