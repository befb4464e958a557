import type { LookupAddress } from 'node:dns';
import t from 'tap';
import { DestinationGuard, DestinationRefusedError, isPublicAddress } from '../../../server/webhooks/destination-guard.js';
import { nextAttemptAt, defaultRetryPolicy } from '../../../server/webhooks/retry-schedule.js';
import { parseRetryAfter } from '../../../server/webhooks/webhook-sender.js';
import { signedHeaders } from '../../../server/webhooks/webhook-signature.js';
import { Webhook } from 'standardwebhooks';

t.test('which addresses are public', async (t) => {
  const refused = [
    '127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '0.0.0.0',
    '100.64.0.1', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '64:ff9b::a00:1', '64:ff9b::192.168.0.1', 'not an address',
  ];
  for (const address of refused) t.notOk(isPublicAddress(address), `${address} is not public`);
  const allowed = ['93.184.215.14', '8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'];
  for (const address of allowed) t.ok(isPublicAddress(address), `${address} is public`);
});

t.test('check(): refuses names and literals that are not public, unless allowed', async (t) => {
  const answers: Record<string, string[]> = {
    'hooks.example.com': ['93.184.215.14'],
    'mixed.example.com': ['93.184.215.14', '10.0.0.7'],
    'internal.example.com': ['fd00::7'],
  };
  const resolve = async (host: string): Promise<LookupAddress[]> => {
    const addresses = answers[host];
    if (addresses === undefined) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const strict = new DestinationGuard(false, resolve);
  await t.resolves(strict.check(new URL('https://hooks.example.com/x')));
  await t.resolves(strict.check(new URL('http://93.184.215.14/x')));
  for (const url of ['https://mixed.example.com/', 'https://internal.example.com/', 'http://127.0.0.1:8080/', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'https://nowhere.example.com/']) {
    await t.rejects(strict.check(new URL(url)), DestinationRefusedError, url);
  }
  const open = new DestinationGuard(true, resolve);
  await t.resolves(open.check(new URL('http://127.0.0.1:8080/')));
  await t.resolves(open.check(new URL('https://internal.example.com/')));
  await t.rejects(open.check(new URL('https://nowhere.example.com/')), DestinationRefusedError, 'a name must resolve even when private targets are allowed');
});

t.test('lookup(): the address connected to is checked at connect time (no DNS rebinding)', async (t) => {
  let calls = 0;
  const rebinding = async (): Promise<LookupAddress[]> => (++calls === 1 ? [{ address: '93.184.215.14', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]);
  const guard = new DestinationGuard(false, rebinding);
  await guard.check(new URL('https://rebind.example.com/'));
  const looked = await new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
    guard.lookup('rebind.example.com', { all: true }, (error, address) => resolve({ error, address })),
  );
  t.type(looked.error, DestinationRefusedError, 'the second answer (loopback) is refused when connecting');
  const stable = new DestinationGuard(false, async () => [{ address: '93.184.215.14', family: 4 }]);
  const single = await new Promise<{ address: unknown; family: unknown }>((resolve) =>
    stable.lookup('ok.example.com', {}, (_error, address, family) => resolve({ address, family })),
  );
  t.same(single, { address: '93.184.215.14', family: 4 });
  const all = await new Promise<unknown>((resolve) => stable.lookup('ok.example.com', { all: true }, (_error, addresses) => resolve(addresses)));
  t.same(all, [{ address: '93.184.215.14', family: 4 }]);
});

t.test('retry schedule: exponential backoff with full jitter, Retry-After as a floor, at least 24 h', async (t) => {
  const policy = defaultRetryPolicy;
  const created = 1_000_000;
  const at = (attempts: number, random: number, nowMs = created, retryAfterMs?: number) =>
    nextAttemptAt({ attempts, createdAtMs: created, nowMs, retryAfterMs }, policy, () => random)! - nowMs;
  t.equal(at(1, 0.999999), Math.floor(0.999999 * 10_000), 'first retry within 10 s');
  t.equal(at(4, 0.5), 40_000, 'the ceiling doubles: 80 s at the fourth, half of it drawn');
  t.equal(at(30, 1), 2 * 3_600_000, 'capped at 2 h');
  t.equal(at(1, 0), 0, 'full jitter can retry at once');
  t.equal(at(1, 0, created, 300_000), 300_000, 'Retry-After is a floor');
  t.equal(at(1, 0, created, 10 * 86_400_000), 86_400_000, 'a huge Retry-After is cut to 24 h');
  t.equal(nextAttemptAt({ attempts: 50, createdAtMs: created, nowMs: created + 86_400_000 - 1 }, policy, () => 1)! > created + 86_400_000, true, 'still retried just before 24 h');
  t.equal(nextAttemptAt({ attempts: 50, createdAtMs: created, nowMs: created + 86_400_000 }, policy, () => 1), undefined, 'given up after 24 h');
  t.equal(parseRetryAfter('120', 0), 120_000);
  t.equal(parseRetryAfter(new Date(60_000).toUTCString(), 0), 60_000);
  t.equal(parseRetryAfter('soon', 0), undefined);
});

t.test('signatures verify with the standardwebhooks package', async (t) => {
  const secret = `whsec_${Buffer.from('0123456789abcdef01234567').toString('base64')}`;
  const body = JSON.stringify({ id: 'evt_1', type: 'alert.triggered', data: { object: { x: 'ü' } } });
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = signedHeaders(secret, 'evt_1', timestamp, body);
  t.same(new Webhook(secret).verify(body, headers), JSON.parse(body));
  t.throws(() => new Webhook(secret).verify(`${body} `, headers), 'a changed body fails');
  t.throws(() => new Webhook(`whsec_${Buffer.from('another-secret-of-24-byt').toString('base64')}`).verify(body, headers), 'another secret fails');
});
