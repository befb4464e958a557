import t from 'tap';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { hashToken } from '../../../../server/auth/api-keys/api-key-token.js';
import type { Scope } from '../../../../server/auth/permissions.js';
import { databaseFileName } from '../../../../server/state-dir.js';
import { createServiceKey, createTenant, createUserKey, startTestServer } from '../../../helpers/test-server.js';

/** Scopes of a key that may manage keys: `api_keys` is never a default, it must be asked for. */
const managing: Scope[] = ['databases', 'metrics', 'api_keys'];

t.test('API keys over HTTP', async (t) => {
  const server = await startTestServer();
  t.teardown(server.close);
  const now = server.clock.now;
  const tenant = createTenant(server.services, now);
  /** A key of the tenant's own service account that may manage keys. */
  const manager = createServiceKey(server.services, tenant.orgId, now, { scopes: managing });

  await t.test('creating a key shows the value once and stores only its hash', async (t) => {
    const created = await server.request('POST', '/v1/api-keys', {
      key: manager,
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

    const listed = await server.request('GET', '/v1/api-keys', { key: manager });
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

  await t.test('last_used_at is written on first use, then at most once a minute', async (t) => {
    const key = createServiceKey(server.services, tenant.orgId, now, { account: 'used' });
    const lastUsed = () => server.db.prepare<[Buffer], string | null>('SELECT last_used_at FROM api_keys WHERE token_hash = ?').pluck().get(hashToken(key));
    t.teardown(() => {
      server.clock.now = now;
    });
    const useAt = async (offsetMs: number) => {
      server.clock.now = new Date(now.getTime() + offsetMs);
      t.equal((await server.request('GET', '/v1/databases', { key })).status, 200);
      return lastUsed();
    };
    t.equal(lastUsed(), null, 'never used');
    t.equal(await useAt(0), now.toISOString(), 'the first use');
    t.equal(await useAt(59_999), now.toISOString(), 'within the minute: not written again');
    t.equal(await useAt(60_000), new Date(now.getTime() + 60_000).toISOString(), 'a minute on');
    t.equal(await useAt(119_999), new Date(now.getTime() + 60_000).toISOString(), 'a minute from that write, not from the first');
    t.equal(await useAt(120_000), new Date(now.getTime() + 120_000).toISOString());
  });

  await t.test('a revoked key gets 401 revoked_api_key; revoking twice is 409', async (t) => {
    const created = await server.request('POST', '/v1/api-keys', { key: manager, body: { name: 'short-lived', permission: 'write' } });
    t.equal((await server.request('DELETE', `/v1/api-keys/${created.body.id}`, { key: manager })).status, 204);
    const refused = await server.request('GET', '/v1/databases', { key: created.body.key });
    t.equal(refused.status, 401);
    t.equal(refused.body.error.code, 'revoked_api_key');
    const again = await server.request('DELETE', `/v1/api-keys/${created.body.id}`, { key: manager });
    t.equal(again.status, 409);
    t.equal(again.body.error.code, 'already_revoked');
    const listed = await server.request('GET', '/v1/api-keys', { key: manager });
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
    t.same(defaults.body.scopes, ['databases'], 'default scopes stay within the creator, and api_keys is not among them');
    const member = createUserKey(server.services, tenant.orgId, now, 'member', 'write', managing);
    const sa = await server.request('POST', '/v1/api-keys', { key: member.key, body: { name: 'x', permission: 'read', service_account: 'bot' } });
    t.equal(sa.status, 403, 'members cannot mint service-account keys');
    const expiring = createServiceKey(server.services, tenant.orgId, now, {
      expiresAt: new Date(now.getTime() + 3_600_000).toISOString(),
      account: 'expiring-creator',
      scopes: managing,
    });
    const outlives = await server.request('POST', '/v1/api-keys', {
      key: expiring,
      body: { name: 'x', permission: 'read', expires_at: new Date(now.getTime() + 7_200_000).toISOString() },
    });
    t.equal(outlives.status, 403, 'a key cannot outlive its creator');
    const inherits = await server.request('POST', '/v1/api-keys', { key: expiring, body: { name: 'x', permission: 'read' } });
    t.equal(inherits.body.expires_at, new Date(now.getTime() + 3_600_000).toISOString());
  });

  await t.test('members see only their own personal tokens', async (t) => {
    const member = createUserKey(server.services, tenant.orgId, now, 'member', 'write', managing);
    const listed = await server.request('GET', '/v1/api-keys', { key: member.key });
    t.equal(listed.status, 200);
    t.equal(listed.body.pagination.total, 1);
    t.equal(listed.body.data[0].user_id, member.userId);
    const others = await server.request('GET', '/v1/api-keys', { key: manager });
    const foreign = others.body.data.find((record: { user_id: string | null }) => record.user_id === null);
    const revoke = await server.request('DELETE', `/v1/api-keys/${foreign.id}`, { key: member.key });
    t.equal(revoke.status, 404, "another user's key is not visible to a member");
  });

  await t.test('bad input is refused with the contract error body', async (t) => {
    const response = await server.request('POST', '/v1/api-keys', { key: manager, body: { name: 'x', permission: 'admin' } });
    t.equal(response.status, 400);
    t.equal(response.body.error.param, 'permission');
    t.equal(response.body.error.code, 'invalid_parameter');
    const past = await server.request('POST', '/v1/api-keys', {
      key: manager,
      body: { name: 'x', permission: 'read', expires_at: '2001-01-01T00:00:00Z' },
    });
    t.equal(past.status, 400);
    t.equal(past.body.error.param, 'expires_at');
  });

  const idOf = (key: string) => server.db.prepare<[Buffer], string>('SELECT id FROM api_keys WHERE token_hash = ?').pluck().get(hashToken(key))!;
  const create = (key: string, body: Record<string, unknown>) => server.request('POST', '/v1/api-keys', { key, body });
  const listIds = async (key: string) =>
    ((await server.request('GET', '/v1/api-keys?per_page=100', { key })).body.data as Array<{ id: string }>).map((record) => record.id);

  await t.test('api_keys is never a default scope: a key that may make keys must ask for it', async (t) => {
    const plain = createServiceKey(server.services, tenant.orgId, now, { account: 'plain' });
    const refused = await create(plain, { name: 'x', permission: 'read' });
    t.equal(refused.status, 403, 'a key made with the defaults cannot make keys');
    t.equal(refused.body.error.code, 'insufficient_permission');
    t.equal((await server.request('GET', '/v1/api-keys', { key: plain })).status, 403, 'nor list them');

    const child = await create(manager, { name: 'defaults', permission: 'read' });
    t.equal(child.status, 201);
    t.notOk(child.body.scopes.includes('api_keys'), 'a key made through the API without scopes does not get api_keys either');
    const asked = await create(manager, { name: 'asked', permission: 'read', scopes: ['databases', 'api_keys'] });
    t.same(asked.body.scopes, ['databases', 'api_keys'], 'granted when asked for, within the creator');
  });

  await t.test('revoking a key revokes every key made through it, transitively', async (t) => {
    const root = createServiceKey(server.services, tenant.orgId, now, { scopes: managing, account: 'lineage' });
    const sibling = createServiceKey(server.services, tenant.orgId, now, { account: 'lineage' });
    const child = await create(root, { name: 'child', permission: 'write', scopes: managing });
    t.equal(child.body.parent_key_id, idOf(root), 'the child records its parent');
    const grandchild = await create(child.body.key, { name: 'grandchild', permission: 'read', scopes: ['databases'] });
    t.equal(grandchild.body.parent_key_id, child.body.id);
    t.equal((await server.request('GET', '/v1/databases', { key: grandchild.body.key })).status, 200);

    t.equal((await server.request('DELETE', `/v1/api-keys/${idOf(root)}`, { key: root })).status, 204);
    for (const [name, key] of [['child', child.body.key], ['grandchild', grandchild.body.key]] as const) {
      const refused = await server.request('GET', '/v1/databases', { key });
      t.equal(refused.status, 401, `the ${name} is refused`);
      t.equal(refused.body.error.code, 'revoked_api_key');
    }
    t.equal((await server.request('GET', '/v1/databases', { key: sibling })).status, 200, 'a key of the same account not made through it lives on');
    const rows = server.db
      .prepare<[string, string], { id: string; revoked_at: string | null }>('SELECT id, revoked_at FROM api_keys WHERE id IN (?, ?)')
      .all(child.body.id, grandchild.body.id);
    t.ok(rows.length === 2 && rows.every((row) => row.revoked_at !== null), 'the records say revoked');
  });

  await t.test('a key whose parent expired is refused at authentication', async (t) => {
    const expiresAt = new Date(now.getTime() + 3_600_000).toISOString();
    const parent = createServiceKey(server.services, tenant.orgId, now, { scopes: managing, account: 'expiring-parent', expiresAt });
    const child = await create(parent, { name: 'child', permission: 'read', scopes: ['databases'] });
    t.equal(child.body.expires_at, expiresAt, 'a child inherits its parent expiry');
    // A row that outlives its parent all the same (written by an older server or by hand) is still refused.
    server.db.prepare('UPDATE api_keys SET expires_at = NULL WHERE id = ?').run(child.body.id);
    t.equal((await server.request('GET', '/v1/databases', { key: child.body.key })).status, 200);
    server.clock.now = new Date(now.getTime() + 3_601_000);
    t.teardown(() => {
      server.clock.now = now;
    });
    const refused = await server.request('GET', '/v1/databases', { key: child.body.key });
    t.equal(refused.status, 401);
    t.equal(refused.body.error.code, 'expired_api_key');
    t.match(refused.body.error.message, /key that created it expired/);
  });

  await t.test("a service-account key manages only its own service account's keys", async (t) => {
    const teamA = createServiceKey(server.services, tenant.orgId, now, { scopes: managing, account: 'team-a' });
    const teamAOther = createServiceKey(server.services, tenant.orgId, now, { account: 'team-a' });
    const teamB = createServiceKey(server.services, tenant.orgId, now, { account: 'team-b' });
    const member = createUserKey(server.services, tenant.orgId, now, 'member');

    const listed = await server.request('GET', '/v1/api-keys?per_page=100', { key: teamA });
    t.equal(listed.status, 200);
    t.ok(listed.body.data.length >= 2 && listed.body.data.every((record: { service_account: string }) => record.service_account === 'team-a'), "lists only team-a's keys");
    t.ok(listed.body.data.some((record: { id: string }) => record.id === idOf(teamAOther)));
    for (const [whose, key] of [['another service account', teamB], ['a user', member.key]] as const) {
      const revoke = await server.request('DELETE', `/v1/api-keys/${idOf(key)}`, { key: teamA });
      t.equal(revoke.status, 404, `cannot revoke ${whose}'s key`);
      t.equal((await server.request('GET', '/v1/databases', { key })).status, 200, `${whose}'s key still works`);
    }
    const foreign = await create(teamA, { name: 'x', permission: 'read', service_account: 'team-b' });
    t.equal(foreign.status, 403, "cannot make keys for another service account");
    const fresh = await create(teamA, { name: 'x', permission: 'read', service_account: 'brand-new' });
    t.equal(fresh.status, 403, 'nor create a service account');
    const own = await create(teamA, { name: 'x', permission: 'read', service_account: 'team-a' });
    t.equal(own.status, 201, 'its own service account is fine');
    t.equal((await server.request('DELETE', `/v1/api-keys/${idOf(teamAOther)}`, { key: teamA })).status, 204, 'and so is revoking its keys');
  });

  await t.test("owners and admins manage every key of the organization through their personal tokens", async (t) => {
    const target = createServiceKey(server.services, tenant.orgId, now, { account: 'managed' });
    const member = createUserKey(server.services, tenant.orgId, now, 'member');
    for (const role of ['owner', 'admin'] as const) {
      const boss = createUserKey(server.services, tenant.orgId, now, role, 'write', managing);
      const ids = await listIds(boss.key);
      t.ok(ids.includes(idOf(target)) && ids.includes(idOf(member.key)) && ids.includes(idOf(manager)), `an ${role} sees every key`);
    }
    const admin = createUserKey(server.services, tenant.orgId, now, 'admin', 'write', managing);
    t.equal((await server.request('DELETE', `/v1/api-keys/${idOf(target)}`, { key: admin.key })).status, 204);
    t.equal((await server.request('DELETE', `/v1/api-keys/${idOf(member.key)}`, { key: admin.key })).status, 204);
    t.equal((await server.request('GET', '/v1/databases', { key: member.key })).status, 401);
    const made = await create(admin.key, { name: 'bot', permission: 'read', service_account: 'made-by-admin' });
    t.equal(made.status, 201, 'an admin makes service-account keys');
    t.equal(made.body.parent_key_id, idOf(admin.key), 'through its token, which is then their parent');
  });

  await t.test('a key in use follows changes to its row, its organization and its revocation at the next request', async (t) => {
    const organization = server.services.identity.createOrganization({ name: 'changing', plan: 'pro' }, now);
    const key = createServiceKey(server.services, organization.id, now, { account: 'followed' });
    const use = () => server.request('GET', '/v1/databases', { key });
    t.equal((await use()).headers.get('x-ratelimit-limit'), '1000', 'pro');
    t.equal((await use()).status, 200, 'served from the cached row');
    const shell = new Database(join(server.stateDir, databaseFileName));
    t.teardown(() => shell.close());
    shell.prepare("UPDATE organizations SET plan = 'enterprise' WHERE id = ?").run(organization.id);
    t.equal((await use()).headers.get('x-ratelimit-limit'), '10000', 'a changed plan');
    shell.prepare('UPDATE api_keys SET expires_at = ? WHERE token_hash = ?').run(new Date(now.getTime() - 1000).toISOString(), hashToken(key));
    const expired = await use();
    t.equal(expired.body.error?.code, 'expired_api_key', 'an expiry set on the row');
    shell.prepare('UPDATE api_keys SET expires_at = NULL, revoked_at = ? WHERE token_hash = ?').run(now.toISOString(), hashToken(key));
    const revoked = await use();
    t.equal(revoked.body.error?.code, 'revoked_api_key', 'a revocation');
    const mistyped = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
    for (let i = 0; i < 2; i++) t.equal((await server.request('GET', '/v1/databases', { key: mistyped })).body.error?.code, 'malformed_api_key', 'a mistyped key, each time');
  });

  await t.test('a personal token of a user who no longer exists is refused, never given write', async (t) => {
    const { userId, key } = createUserKey(server.services, tenant.orgId, now, 'member');
    t.equal((await server.request('GET', '/v1/databases', { key })).status, 200);
    // Deleted by hand with the sqlite3 shell, whose foreign keys are off by default: the token row stays.
    const shell = new Database(join(server.stateDir, databaseFileName));
    shell.pragma('foreign_keys = OFF');
    shell.prepare('DELETE FROM users WHERE id = ?').run(userId);
    shell.close();
    t.equal(server.db.prepare('SELECT count(*) FROM api_keys WHERE user_id = ?').pluck().get(userId), 1, 'the token is still stored');
    const read = await server.request('GET', '/v1/databases', { key });
    t.equal(read.status, 401);
    t.equal(read.body.error.code, 'invalid_api_key');
    const write = await server.request('POST', '/v1/databases', {
      key,
      body: { name: 'orphan-write', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' } },
    });
    t.equal(write.status, 401, 'a write is refused too');
  });

  await t.test("a viewer's write token is told its role is the cause", async (t) => {
    const viewer = createUserKey(server.services, tenant.orgId, now, 'viewer', 'write');
    const body = { name: 'viewer-db', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' } };
    const refused = await server.request('POST', '/v1/databases', { key: viewer.key, body });
    t.equal(refused.status, 403);
    t.equal(refused.body.error.code, 'insufficient_permission');
    t.match(refused.body.error.message, /role viewer/);
    t.notMatch(refused.body.error.message, /API key has read permission/, 'the key itself has write permission');
    const readKey = createServiceKey(server.services, tenant.orgId, now, { permission: 'read', account: 'read-only' });
    const keyRefused = await server.request('POST', '/v1/databases', { key: readKey, body });
    t.match(keyRefused.body.error.message, /API key has read permission only/, 'a read key is still told so');
  });
});

t.test('the OpenAPI document says how keys and limits work', async (t) => {
  const server = await startTestServer();
  t.teardown(server.close);
  const doc = (await server.request('GET', '/v1/openapi.json')).body;
  const create = doc.paths['/v1/api-keys'].post;
  t.match(create.description, /api_keys` scope, which no key gets by default/);
  t.match(create.description, /revokes the new key and every key made through it, transitively/);
  t.match(create.description, /409 `limit_reached`/);
  t.ok(create.responses['409'], 'the 409 is a documented response');
  t.match(doc.components.schemas.ApiKeyCreate.properties.scopes.description, /except `agent` and `api_keys`/);
  t.match(doc.components.schemas.ApiKey.properties.parent_key_id.description, /Revoking a key revokes every key made through it/);
  t.match(doc.paths['/v1/api-keys/{id}'].delete.description, /every key made with it/);
  t.ok(doc.components.schemas.Error.properties.error.properties.code.enum.includes('limit_reached'));
  t.match(doc.paths['/v1/databases'].get.responses['429'].description, /per principal.*a service account's keys together/s);
});

t.test('live keys per organization are capped', async (t) => {
  const server = await startTestServer({ maxLiveApiKeysPerOrganization: 3 });
  t.teardown(server.close);
  const now = server.clock.now;
  const tenant = createTenant(server.services, now);
  const manager = createServiceKey(server.services, tenant.orgId, now, { scopes: managing });
  const expiring = await server.request('POST', '/v1/api-keys', {
    key: manager,
    body: { name: 'soon gone', permission: 'read', expires_at: new Date(now.getTime() + 60_000).toISOString() },
  });
  t.equal(expiring.status, 201, 'the third live key');
  const over = await server.request('POST', '/v1/api-keys', { key: manager, body: { name: 'fourth', permission: 'read' } });
  t.equal(over.status, 409);
  t.equal(over.body.error.type, 'conflict');
  t.equal(over.body.error.code, 'limit_reached');
  t.match(over.body.error.message, /3/);
  t.throws(
    () => createServiceKey(server.services, tenant.orgId, now, { account: 'operator' }),
    { code: 'limit_reached' },
    'the operator path is capped too',
  );
  const other = createTenant(server.services, now);
  t.ok(other.key, 'another organization has a cap of its own');

  server.clock.now = new Date(now.getTime() + 61_000);
  t.teardown(() => {
    server.clock.now = now;
  });
  const afterExpiry = await server.request('POST', '/v1/api-keys', { key: manager, body: { name: 'fourth', permission: 'read' } });
  t.equal(afterExpiry.status, 201, 'an expired key is not live');
  t.equal((await server.request('DELETE', `/v1/api-keys/${afterExpiry.body.id}`, { key: manager })).status, 204);
  const afterRevoke = await server.request('POST', '/v1/api-keys', { key: manager, body: { name: 'fifth', permission: 'read' } });
  t.equal(afterRevoke.status, 201, 'nor is a revoked one');
});
