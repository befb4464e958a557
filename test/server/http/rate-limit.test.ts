import t from 'tap';
import { createServiceKey, createTenant, startTestServer } from '../../helpers/test-server.js';

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
    t.equal((await server.request('GET', '/v1/databases', { key: otherKey })).status, 200, 'counted per credential');

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

  await t.test('unauthenticated requests are counted per client address', async (t) => {
    const first = await server.request('GET', '/v1/databases');
    t.equal(first.status, 401);
    t.equal(first.headers.get('x-ratelimit-limit'), '100');
    const remaining = Number(first.headers.get('x-ratelimit-remaining'));
    const second = await server.request('GET', '/v1/databases', { key: 'dbm_sak_not-a-key' });
    t.equal(Number(second.headers.get('x-ratelimit-remaining')), remaining - 1);
  });
});
