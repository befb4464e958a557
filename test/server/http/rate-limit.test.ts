import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import t from 'tap';
import { closeGracefully, listen } from '../../../server/http-server.js';
import { rateLimit } from '../../../server/http/rate-limit.js';
import { RateLimiter } from '../../../server/http/rate-limiter.js';
import { createServiceKey, createTenant, createUserKey, startTestServer } from '../../helpers/test-server.js';

t.test('rate limits follow the contract', async (t) => {
  // A fixed clock in the middle of an hour keeps the whole test inside one window.
  const server = await startTestServer({ now: new Date('2026-11-22T10:30:00Z') });
  t.teardown(server.close);
  const resetAt = Date.parse('2026-11-22T11:00:00Z') / 1000;

  await t.test('a free-plan key gets its 101st request refused with the full 429 contract', async (t) => {
    const tenant = createTenant(server.services, server.clock.now, 'free');
    for (let i = 1; i <= 100; i++) {
      const response = await server.request('GET', '/v1/databases', { key: tenant.key });
      if (response.status !== 200) t.fail(`request ${i} got ${response.status}`);
      if (i === 1 || i === 100) {
        t.equal(response.headers.get('x-ratelimit-limit'), '100');
        t.equal(response.headers.get('x-ratelimit-remaining'), String(100 - i));
        t.equal(response.headers.get('x-ratelimit-reset'), String(resetAt));
      }
    }
    const refused = await server.request('GET', '/v1/databases', { key: tenant.key });
    t.equal(refused.status, 429);
    t.equal(refused.body.error.type, 'rate_limit_exceeded');
    t.equal(refused.body.error.code, 'rate_limited');
    t.equal(refused.body.error.retry_after, resetAt);
    t.match(refused.body.error.message, '2026-11-22T11:00:00.000Z', 'the message names the retry time');
    t.equal(refused.headers.get('retry-after'), String(30 * 60));
    t.equal(refused.headers.get('x-ratelimit-remaining'), '0');
    t.equal(refused.headers.get('x-ratelimit-reset'), String(resetAt));

    const otherKey = createServiceKey(server.services, tenant.orgId, server.clock.now, { account: 'second' });
    t.equal((await server.request('GET', '/v1/databases', { key: otherKey })).status, 200, 'another service account has a budget of its own');

    server.clock.now = new Date('2026-11-22T11:00:01Z');
    t.teardown(() => {
      server.clock.now = new Date('2026-11-22T10:30:00Z');
    });
    const nextHour = await server.request('GET', '/v1/databases', { key: tenant.key });
    t.equal(nextHour.status, 200, 'a new window opens at the hour');
    t.equal(nextHour.headers.get('x-ratelimit-remaining'), '99');
  });

  await t.test('plans set the limit; errors carry the headers too', async (t) => {
    const pro = createTenant(server.services, server.clock.now, 'pro');
    const ok = await server.request('GET', '/v1/databases', { key: pro.key });
    t.equal(ok.headers.get('x-ratelimit-limit'), '1000');
    const notFound = await server.request('GET', '/v1/databases/db_nope', { key: pro.key });
    t.equal(notFound.status, 404);
    t.equal(notFound.headers.get('x-ratelimit-limit'), '1000');
    const custom = server.services.identity.createOrganization({ name: 'big', plan: 'enterprise', customHourlyLimit: 50000 }, server.clock.now);
    const customKey = createServiceKey(server.services, custom.id, server.clock.now);
    t.equal((await server.request('GET', '/v1/databases', { key: customKey })).headers.get('x-ratelimit-limit'), '50000');
  });

  await t.test('agent calls have buckets of their own with a higher floor', async (t) => {
    const tenant = createTenant(server.services, server.clock.now, 'free');
    const agentKey = createServiceKey(server.services, tenant.orgId, server.clock.now, { scopes: ['agent', 'databases'], account: 'agent' });
    for (let i = 0; i < 100; i++) await server.request('GET', '/v1/databases', { key: agentKey });
    t.equal((await server.request('GET', '/v1/databases', { key: agentKey })).status, 429, 'the dashboard budget is spent');
    const assignments = await server.request('GET', '/v1/agent/assignments', { key: agentKey });
    t.equal(assignments.status, 200, 'monitoring goes on');
    t.equal(assignments.headers.get('x-ratelimit-limit'), '36000');
    t.equal(assignments.headers.get('x-ratelimit-remaining'), '35999');
  });

  await t.test('minting keys buys no more requests: a service account is counted once, whatever key it uses', async (t) => {
    const tenant = createTenant(server.services, server.clock.now, 'free');
    const minter = createServiceKey(server.services, tenant.orgId, server.clock.now, { scopes: ['databases', 'api_keys'], account: 'minter' });
    const keys = [minter];
    for (let i = 0; i < 5; i++) {
      const minted = await server.request('POST', '/v1/api-keys', { key: minter, body: { name: `minted-${i}`, permission: 'read' } });
      t.equal(minted.status, 201);
      keys.push(minted.body.key);
    }
    let allowed = 5;
    for (let round = 0; round < 40 && allowed < 200; round++) {
      for (const key of keys) {
        const response = await server.request('GET', '/v1/databases', { key });
        if (response.status === 200) allowed++;
      }
    }
    t.equal(allowed, 100, 'six keys of one service account share its 100 requests an hour');
    const operatorMade = createServiceKey(server.services, tenant.orgId, server.clock.now, { account: 'minter' });
    t.equal((await server.request('GET', '/v1/databases', { key: operatorMade })).status, 429, 'a key made by the operator joins the same budget');
  });

  await t.test("a user's personal tokens share one budget", async (t) => {
    const tenant = createTenant(server.services, server.clock.now, 'free');
    const { userId, key } = createUserKey(server.services, tenant.orgId, server.clock.now, 'member');
    const second = server.services.apiKeys.create(tenant.orgId, { kind: 'personal', userId }, { name: 'laptop', permission: 'read' }, server.clock.now).value;
    const first = await server.request('GET', '/v1/databases', { key });
    const then = await server.request('GET', '/v1/databases', { key: second });
    t.equal(first.headers.get('x-ratelimit-remaining'), '99');
    t.equal(then.headers.get('x-ratelimit-remaining'), '98', 'the second token draws on the same count');
    const someoneElse = createUserKey(server.services, tenant.orgId, server.clock.now, 'member');
    const other = await server.request('GET', '/v1/databases', { key: someoneElse.key });
    t.equal(other.headers.get('x-ratelimit-remaining'), '99', 'another user of the organization has a budget of their own');
  });

  await t.test('unauthenticated requests are counted per client address', async (t) => {
    const first = await server.request('GET', '/v1/databases');
    t.equal(first.status, 401);
    t.equal(first.headers.get('x-ratelimit-limit'), '100');
    const remaining = Number(first.headers.get('x-ratelimit-remaining'));
    const second = await server.request('GET', '/v1/databases', { key: 'dbm_sak_not-a-key' });
    t.equal(Number(second.headers.get('x-ratelimit-remaining')), remaining - 1);
  });
});

t.test('unauthenticated clients are counted per address, IPv6 per /64 and IPv4-mapped IPv6 as IPv4', async (t) => {
  const now = new Date('2026-11-22T10:30:00Z');
  // The real middleware behind a reverse proxy, so each request can come from the address it names.
  const app = new Koa({ proxy: true });
  app.use(rateLimit(new RateLimiter(), () => now));
  app.use((ctx) => {
    ctx.body = 'ok';
  });
  const server = await listen(app, '127.0.0.1', 0);
  t.teardown(() => closeGracefully(server, 1000));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/databases`;
  const remainingFor = async (address: string) =>
    Number((await fetch(url, { headers: { 'x-forwarded-for': address } })).headers.get('x-ratelimit-remaining'));

  t.equal(await remainingFor('2001:db8:1:2::1'), 99);
  t.equal(await remainingFor('2001:db8:1:2:aaaa:bbbb:cccc:dddd'), 98, 'another address of the same /64 is the same client');
  t.equal(await remainingFor('2001:DB8:0001:0002::ffff'), 97, 'however it is written');
  t.equal(await remainingFor('2001:db8:1:3::1'), 99, 'the next /64 is another client');
  t.equal(await remainingFor('192.0.2.7'), 99);
  t.equal(await remainingFor('::ffff:192.0.2.7'), 98, 'IPv4-mapped IPv6 is its IPv4 address');
  t.equal(await remainingFor('::ffff:c000:207'), 97, 'in hexadecimal too');
  t.equal(await remainingFor('192.0.2.8'), 99, 'IPv4 addresses are not grouped');
});
