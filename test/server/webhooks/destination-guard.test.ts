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

t.test('IPv6 forms that carry or reach an IPv4 address are refused: IPv4-compatible, 6to4, local-use NAT64', async (t) => {
  const refused = [
    '::7f00:1', '::127.0.0.1', '::10.0.0.1', '::a9fe:a9fe', '::8.8.8.8', // IPv4-compatible ::/96, private or not
    '2002:7f00:1::', '2002:c0a8:101::1', '2002:a9fe:a9fe::1', '2002:808:808::1', // 6to4 2002::/16
    '64:ff9b:1::a00:1', '64:ff9b:1::7f00:1', '64:ff9b:1:ffff::1', '64:ff9b:1::808:808', // local-use NAT64 64:ff9b:1::/48
    '64:ff9b::7f00:1', '64:ff9b::a9fe:a9fe', // well-known NAT64 64:ff9b::/96 to a non-public IPv4 address
  ];
  for (const address of refused) t.notOk(isPublicAddress(address), `${address} is not public`);
  const strict = new DestinationGuard(false, async () => [{ address: '2002:a9fe:a9fe::1', family: 6 }]);
  for (const url of ['http://[::127.0.0.1]/', 'http://[::a9fe:a9fe]/', 'http://[2002:7f00:1::]/', 'http://[64:ff9b:1::a9fe:a9fe]/', 'https://six-to-four.example.com/']) {
    await t.rejects(strict.check(new URL(url)), DestinationRefusedError, url);
  }
  t.ok(isPublicAddress('64:ff9b::808:808'), 'a well-known NAT64 address of a public IPv4 host stays allowed (DNS64 networks)');
  t.ok(isPublicAddress('2003::1'), 'the neighbour of 2002::/16 is public');
  t.ok(isPublicAddress('64:ff9b:2::1'), 'the neighbour of 64:ff9b:1::/48 is public');
});

t.test('a refusal never says what a host name resolves to, and a private name reads like a missing one', async (t) => {
  const answers: Record<string, string[]> = { 'db.internal.example': ['10.20.30.40'], 'meta.internal.example': ['fd00::a9fe', '169.254.169.254'] };
  const resolve = async (host: string): Promise<LookupAddress[]> => {
    const addresses = answers[host];
    if (addresses === undefined) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const guard = new DestinationGuard(false, resolve);
  const refusal = async (host: string) => {
    const error = await guard.check(new URL(`https://${host}/`)).then(() => undefined, (caught: unknown) => caught);
    t.type(error, DestinationRefusedError, host);
    return (error as Error).message;
  };
  const privateName = await refusal('db.internal.example');
  t.notMatch(privateName, /10\.20\.30\.40/, 'the resolved address is not named');
  t.match(privateName, /db\.internal\.example/, 'the host the caller gave is named');
  const twoAddresses = await refusal('meta.internal.example');
  t.notMatch(twoAddresses, /fd00|169\.254/);
  const missing = await refusal('missing.internal.example');
  t.equal(privateName.replace('db.internal.example', 'HOST'), missing.replace('missing.internal.example', 'HOST'), 'same refusal for a private name and a missing one');
  const atConnect = await new Promise<NodeJS.ErrnoException | null>((done) => guard.lookup('db.internal.example', { all: true }, (error) => done(error)));
  t.type(atConnect, DestinationRefusedError);
  t.notMatch(atConnect!.message, /10\.20\.30\.40/, 'nor at connect time');
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
