import t from 'tap';
import { TrustedProxies } from '../../../server/http/trusted-proxies.js';
import { startTestServer } from '../../helpers/test-server.js';

t.test('X-Forwarded-For is walked right to left and believed only from trusted proxies', async (t) => {
  const none = new TrustedProxies([]);
  t.equal(none.clientAddress('127.0.0.1', '203.0.113.9'), '127.0.0.1', 'no trusted proxy: the header is ignored');

  const local = new TrustedProxies(['127.0.0.1', '10.0.0.0/8']);
  t.equal(local.clientAddress('127.0.0.1', '203.0.113.9'), '203.0.113.9', 'one hop added by a trusted proxy');
  t.equal(local.clientAddress('127.0.0.1', '198.51.100.1, 203.0.113.9'), '203.0.113.9', 'a spoofed hop left of an untrusted one is not believed');
  t.equal(local.clientAddress('127.0.0.1', '198.51.100.1, 203.0.113.9, 10.1.2.3'), '203.0.113.9', 'trusted hops are passed through');
  t.equal(local.clientAddress('192.0.2.7', '203.0.113.9'), '192.0.2.7', 'a peer that is no trusted proxy is the client whatever it says');
  t.equal(local.clientAddress('127.0.0.1', '10.0.0.1, 10.0.0.2'), '10.0.0.1', 'all hops trusted: the leftmost');
  t.equal(local.clientAddress('127.0.0.1', ''), '127.0.0.1', 'no header: the peer');
  t.equal(local.clientAddress('127.0.0.1', 'unknown, 203.0.113.9'), '203.0.113.9');
  t.equal(local.clientAddress('127.0.0.1', '203.0.113.9, garbage'), '127.0.0.1', 'a hop that is not an address stops the walk at the last believed one');

  t.equal(local.clientAddress('::ffff:127.0.0.1', '::ffff:203.0.113.9'), '203.0.113.9', 'IPv4-mapped peers and hops match and read as IPv4');
  const mapped = new TrustedProxies(['::ffff:127.0.0.0/104']);
  t.equal(mapped.clientAddress('127.0.0.1', '203.0.113.9'), '203.0.113.9', 'an IPv4-mapped range in the list matches the IPv4 form');
  const v6 = new TrustedProxies(['2001:db8::/32']);
  t.equal(v6.clientAddress('2001:db8::1', '2001:db8::2, 2a00:1450::1'), '2a00:1450::1');
  t.equal(v6.openToAll, false);
  t.equal(new TrustedProxies(['0.0.0.0/0']).openToAll, true, 'a range covering every address is flagged');
});

t.test('the server counts unauthenticated calls per believed client address', async (t) => {
  const remainingFor = async (server: Awaited<ReturnType<typeof startTestServer>>, forwardedFor: string) =>
    (await server.request('GET', '/v1/databases', { headers: { 'x-forwarded-for': forwardedFor } })).headers.get('x-ratelimit-remaining');

  const direct = await startTestServer();
  t.teardown(direct.close);
  // Counted from the first answer: the helper itself may already have called from this address.
  const first = Number(await remainingFor(direct, '203.0.113.1'));
  t.equal(Number(await remainingFor(direct, '203.0.113.2')), first - 1, 'without trusted proxies a forged header buys no fresh budget');

  const proxied = await startTestServer({ trustedProxies: ['127.0.0.1'] });
  t.teardown(proxied.close);
  t.equal(await remainingFor(proxied, '203.0.113.1'), '99');
  t.equal(await remainingFor(proxied, '203.0.113.2'), '99', 'behind a trusted proxy each client has its own budget');
  t.equal(await remainingFor(proxied, '203.0.113.1'), '98');
  t.equal(await remainingFor(proxied, '198.51.100.77, 203.0.113.1'), '97', 'a hop forged by the client is not believed');
  t.equal(await remainingFor(proxied, '::ffff:203.0.113.1'), '96', 'an IPv4-mapped address is its IPv4 form');
});
