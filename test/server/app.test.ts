import t from 'tap';
import { createTenant, startTestServer } from '../helpers/test-server.js';

t.test('routes match their path exactly: no way around authentication and rate limiting', async (t) => {
  const server = await startTestServer({ now: new Date('2026-11-22T10:30:00Z') });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now, 'free');
  await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: { name: 'db', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' } },
  });

  for (const path of ['/V1/databases', '/v1/Databases', '/V1/OPENAPI.JSON', '/v1/databases/', '/V1/agent/assignments']) {
    await t.test(`${path} without a key`, async (t) => {
      const response = await server.request('GET', path);
      t.equal(response.status, 404, 'not found, never 200 or 500');
      t.equal(response.body?.error?.type, 'not_found', "the contract's error body");
      t.equal(response.headers.get('x-ratelimit-limit'), '100', 'counted like any unauthenticated /v1 call');
      t.ok(response.headers.get('x-ratelimit-remaining'), 'with the remaining budget');
    });
  }

  await t.test('with a key, an upper-case path is still a 404 and counts against the key', async (t) => {
    const before = await server.request('GET', '/v1/databases', { key: tenant.key });
    const remaining = Number(before.headers.get('x-ratelimit-remaining'));
    const response = await server.request('GET', '/V1/DATABASES', { key: tenant.key });
    t.equal(response.status, 404);
    t.equal(response.body.error.type, 'not_found');
    t.equal(response.headers.get('x-ratelimit-remaining'), String(remaining - 1));
  });

  await t.test('the exact paths still work', async (t) => {
    t.equal((await server.request('GET', '/v1/databases', { key: tenant.key })).status, 200);
    t.equal((await server.request('GET', '/v1/databases')).status, 401);
    t.equal((await server.request('GET', '/v1/openapi.json')).status, 200);
    t.equal((await server.request('GET', '/healthz')).status, 200);
  });
});
