import t from 'tap';
import { createServiceKey, createTenant, createUserKey, startTestServer } from '../../../helpers/test-server.js';

t.test('API keys over HTTP', async (t) => {
  const server = await startTestServer();
  t.teardown(server.close);
  const now = server.clock.now;
  const tenant = createTenant(server.services, now);

  await t.test('creating a key shows the value once and stores only its hash', async (t) => {
    const created = await server.request('POST', '/v1/api-keys', {
      key: tenant.key,
      body: { name: 'ci', permission: 'read', scopes: ['databases', 'metrics'] },
    });
    t.equal(created.status, 201);
    t.match(created.body.key, /^dbm_sak_[0-9A-Za-z]{38}$/);
    t.equal(created.headers.get('location'), `/v1/api-keys/${created.body.id}`);
    t.same(created.body.scopes, ['databases', 'metrics']);
    t.equal(created.body.last4, created.body.key.slice(-4));
    const stored = server.db.prepare('SELECT * FROM api_keys WHERE id = ?').get(created.body.id) as Record<string, unknown>;
    t.notOk(JSON.stringify(stored).includes(created.body.key), 'the value is not stored');
    t.equal((stored.token_hash as Buffer).length, 32, 'a SHA-256 hash is stored');

    const listed = await server.request('GET', '/v1/api-keys', { key: tenant.key });
    t.equal(listed.status, 200);
    t.notOk(listed.text.includes(created.body.key), 'the value is never listed');
    t.ok(listed.body.data.some((record: { id: string }) => record.id === created.body.id));

    const works = await server.request('GET', '/v1/databases', { key: created.body.key });
    t.equal(works.status, 200, 'the new key authenticates');
  });

  await t.test('a read key is refused on writes with 403 permission_error', async (t) => {
    const readKey = createServiceKey(server.services, tenant.orgId, now, { permission: 'read' });
    const response = await server.request('POST', '/v1/databases', {
      key: readKey,
      body: { name: 'x', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' } },
    });
    t.equal(response.status, 403);
    t.same(response.body.error.type, 'permission_error');
    t.same(response.body.error.code, 'insufficient_permission');
    t.equal((await server.request('GET', '/v1/databases', { key: readKey })).status, 200, 'reads still work');
  });

  await t.test('a key outside its scopes gets 403', async (t) => {
    const metricsOnly = createServiceKey(server.services, tenant.orgId, now, { scopes: ['metrics'], account: 'metrics-only' });
    const response = await server.request('GET', '/v1/databases', { key: metricsOnly });
    t.equal(response.status, 403);
    t.equal(response.body.error.code, 'insufficient_permission');
  });

  await t.test('401 codes say what is wrong with the key', async (t) => {
    const missing = await server.request('GET', '/v1/databases');
    t.equal(missing.status, 401);
    t.same(missing.body.error, { type: 'authentication_error', message: missing.body.error.message, code: 'missing_api_key' });

    const wrongScheme = await server.request('GET', '/v1/databases', { headers: { authorization: `Basic ${tenant.key}` } });
    t.equal(wrongScheme.body.error.code, 'malformed_api_key');

    const badChecksum = tenant.key.slice(0, -1) + (tenant.key.endsWith('A') ? 'B' : 'A');
    const checksum = await server.request('GET', '/v1/databases', { key: badChecksum });
    t.equal(checksum.status, 401);
    t.equal(checksum.body.error.code, 'malformed_api_key', 'a bad checksum is refused before lookup');

    const { issueToken } = await import('../../../../server/auth/api-keys/api-key-token.js');
    const unknown = await server.request('GET', '/v1/databases', { key: issueToken('service_account').value });
    t.equal(unknown.status, 401);
    t.equal(unknown.body.error.code, 'invalid_api_key');
  });

  await t.test('an expired key gets 401 expired_api_key', async (t) => {
    const expiresAt = new Date(now.getTime() + 60_000).toISOString();
    const key = createServiceKey(server.services, tenant.orgId, now, { expiresAt, account: 'expiring' });
    t.equal((await server.request('GET', '/v1/databases', { key })).status, 200);
    server.clock.now = new Date(now.getTime() + 61_000);
    t.teardown(() => {
      server.clock.now = now;
    });
    const response = await server.request('GET', '/v1/databases', { key });
    t.equal(response.status, 401);
    t.equal(response.body.error.code, 'expired_api_key');
  });

  await t.test('a revoked key gets 401 revoked_api_key; revoking twice is 409', async (t) => {
    const created = await server.request('POST', '/v1/api-keys', { key: tenant.key, body: { name: 'short-lived', permission: 'write' } });
    t.equal((await server.request('DELETE', `/v1/api-keys/${created.body.id}`, { key: tenant.key })).status, 204);
    const refused = await server.request('GET', '/v1/databases', { key: created.body.key });
    t.equal(refused.status, 401);
    t.equal(refused.body.error.code, 'revoked_api_key');
    const again = await server.request('DELETE', `/v1/api-keys/${created.body.id}`, { key: tenant.key });
    t.equal(again.status, 409);
    t.equal(again.body.error.code, 'already_revoked');
    const listed = await server.request('GET', '/v1/api-keys', { key: tenant.key });
    t.ok(listed.body.data.find((record: { id: string }) => record.id === created.body.id).revoked_at);
  });

  await t.test('a personal token loses write when its user is demoted to viewer', async (t) => {
    const { userId, key } = createUserKey(server.services, tenant.orgId, now, 'member');
    const body = { name: `pat-db-${Date.now()}`, type: 'mysql', connection: { host: 'h', database: 'd', username: 'u' } };
    t.equal((await server.request('POST', '/v1/databases', { key, body })).status, 201);
    server.services.identity.setUserRole(tenant.orgId, userId, 'viewer');
    const refused = await server.request('POST', '/v1/databases', { key, body: { ...body, name: `${body.name}-2` } });
    t.equal(refused.status, 403);
    t.equal(refused.body.error.type, 'permission_error');
    t.equal((await server.request('GET', '/v1/databases', { key })).status, 200, 'reading still works');
  });

  await t.test('a key never creates a key broader than itself', async (t) => {
    const readKey = createServiceKey(server.services, tenant.orgId, now, { permission: 'read', scopes: ['api_keys', 'databases'], account: 'reader' });
    const write = await server.request('POST', '/v1/api-keys', { key: readKey, body: { name: 'x', permission: 'write' } });
    t.equal(write.status, 403, 'read key cannot make anything (creating is a write)');
    const narrow = createServiceKey(server.services, tenant.orgId, now, { scopes: ['api_keys', 'databases'], account: 'narrow' });
    const wider = await server.request('POST', '/v1/api-keys', { key: narrow, body: { name: 'x', permission: 'read', scopes: ['alerts'] } });
    t.equal(wider.status, 403);
    t.equal(wider.body.error.code, 'insufficient_permission');
    const defaults = await server.request('POST', '/v1/api-keys', { key: narrow, body: { name: 'x', permission: 'read' } });
    t.equal(defaults.status, 201);
    t.same(defaults.body.scopes, ['databases', 'api_keys'], 'default scopes stay within the creator');
    const member = createUserKey(server.services, tenant.orgId, now, 'member');
    const sa = await server.request('POST', '/v1/api-keys', { key: member.key, body: { name: 'x', permission: 'read', service_account: 'bot' } });
    t.equal(sa.status, 403, 'members cannot mint service-account keys');
    const expiring = createServiceKey(server.services, tenant.orgId, now, { expiresAt: new Date(now.getTime() + 3_600_000).toISOString(), account: 'expiring-creator' });
    const outlives = await server.request('POST', '/v1/api-keys', {
      key: expiring,
      body: { name: 'x', permission: 'read', expires_at: new Date(now.getTime() + 7_200_000).toISOString() },
    });
    t.equal(outlives.status, 403, 'a key cannot outlive its creator');
    const inherits = await server.request('POST', '/v1/api-keys', { key: expiring, body: { name: 'x', permission: 'read' } });
    t.equal(inherits.body.expires_at, new Date(now.getTime() + 3_600_000).toISOString());
  });

  await t.test('members see only their own personal tokens', async (t) => {
    const member = createUserKey(server.services, tenant.orgId, now, 'member');
    const listed = await server.request('GET', '/v1/api-keys', { key: member.key });
    t.equal(listed.status, 200);
    t.equal(listed.body.pagination.total, 1);
    t.equal(listed.body.data[0].user_id, member.userId);
    const others = await server.request('GET', '/v1/api-keys', { key: tenant.key });
    const foreign = others.body.data.find((record: { user_id: string | null }) => record.user_id === null);
    const revoke = await server.request('DELETE', `/v1/api-keys/${foreign.id}`, { key: member.key });
    t.equal(revoke.status, 404, "another user's key is not visible to a member");
  });

  await t.test('bad input is refused with the contract error body', async (t) => {
    const response = await server.request('POST', '/v1/api-keys', { key: tenant.key, body: { name: 'x', permission: 'admin' } });
    t.equal(response.status, 400);
    t.equal(response.body.error.param, 'permission');
    t.equal(response.body.error.code, 'invalid_parameter');
    const past = await server.request('POST', '/v1/api-keys', {
      key: tenant.key,
      body: { name: 'x', permission: 'read', expires_at: '2001-01-01T00:00:00Z' },
    });
    t.equal(past.status, 400);
    t.equal(past.body.error.param, 'expires_at');
  });
});
