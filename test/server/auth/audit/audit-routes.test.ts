import t from 'tap';
import { operatorOrigin } from '../../../../server/auth/audit/audit-origin.js';
import { createServiceKey, createTenant, createUserKey, startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { createPasswordUser, firefoxUserAgent, signIn, testPassword } from '../../../helpers/sign-in.js';

const inside = '198.51.100.7';
const outside = '203.0.113.9';
const minute = 60_000;

interface Entry {
  id: string;
  action: string;
  actor: { type: string; id: string | null } | null;
  credential: { type: string; id: string } | null;
  target: { type: string; id: string } | null;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
  created_at: string;
}

t.test('the audit log', async (t) => {
  // Behind a trusted proxy (127.0.0.1), so the tests choose each request's client address.
  const server = await startTestServer({ trustedProxies: ['127.0.0.1'] });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now, 'enterprise');
  const owner = await createPasswordUser(server.services, tenant.orgId, 'owner', server.clock.now);
  const ownerToken = createUserKey(server.services, tenant.orgId, server.clock.now, 'owner', 'write', ['databases', 'api_keys']);
  /** Every secret the tests handle: none may ever appear in an entry. */
  const secrets: string[] = [tenant.key, ownerToken.key, testPassword];
  const headers = { 'x-forwarded-for': inside, 'user-agent': firefoxUserAgent };
  const entries = async (query = ''): Promise<Entry[]> => {
    const response = await server.request('GET', `/v1/audit-log${query}`, { key: ownerToken.key, headers });
    t.equal(response.status, 200, response.text);
    return response.body.data as Entry[];
  };
  const latest = async (action: string) => (await entries(`?action=${action}`))[0];
  const advance = (ms: number) => (server.clock.now = new Date(server.clock.now.getTime() + ms));

  await t.test('a sign-in: the user, the session it started, the address and the browser', async (t) => {
    advance(minute);
    const session = await signIn(server, owner.email, undefined, { ip: inside });
    secrets.push(session.token, session.csrfToken);
    const entry = await latest('sign_in.succeeded');
    t.match(entry, {
      id: /^aud_[0-9A-Za-z]{22}$/,
      actor: { type: 'user', id: owner.userId },
      credential: { type: 'session', id: session.sessionId },
      target: { type: 'user', id: owner.userId },
      ip: inside,
      user_agent: firefoxUserAgent,
      created_at: server.clock.now.toISOString(),
    });
  });

  await t.test('a failed sign-in on an existing account: nobody acted, the account was aimed at; an unknown email leaves nothing', async (t) => {
    const wrong = 'Tr0ub4dor&3-not-it';
    secrets.push(wrong);
    await t.rejects(signIn(server, owner.email, wrong, { ip: outside }));
    const entry = await latest('sign_in.failed');
    t.match(entry, { actor: null, credential: null, target: { type: 'user', id: owner.userId }, ip: outside, details: { reason: 'wrong_password' } });
    const rows = () => server.db.prepare('SELECT count(*) FROM audit_log').pluck().get();
    const before = rows();
    await t.rejects(signIn(server, 'nobody@example.test', wrong, { ip: outside }));
    t.equal(rows(), before, 'no organization to record it in, and the "email" might be a password typed in the wrong field');
  });

  await t.test('session revocations', async (t) => {
    const [here, there, third] = [
      await signIn(server, owner.email, undefined, { ip: inside }),
      await signIn(server, owner.email, undefined, { ip: inside }),
      await signIn(server, owner.email, undefined, { ip: inside }),
    ];
    secrets.push(here.token, there.token, third.token, here.csrfToken);
    const revoked = await server.request('DELETE', `/v1/sessions/${there.sessionId}`, { headers: { ...here.headers(), ...headers } });
    t.equal(revoked.status, 204);
    t.match(await latest('session.revoked'), {
      actor: { type: 'user', id: owner.userId },
      credential: { type: 'session', id: here.sessionId },
      target: { type: 'session', id: there.sessionId },
    });
    t.equal((await server.request('DELETE', `/v1/sessions/${there.sessionId}`, { headers: { ...here.headers(), ...headers } })).status, 404);
    t.equal((await entries('?action=session.revoked')).length, 1, 'a refused revocation records nothing: the entry shares the change’s transaction');
    await server.request('POST', '/v1/sessions/revoke-others', { headers: { ...here.headers(), ...headers } });
    const others = await latest('session.revoked_others');
    t.match(others, { credential: { id: here.sessionId }, target: { type: 'user', id: owner.userId } });
    t.ok((others!.details.count as number) >= 2, 'how many ended');
  });

  await t.test('settings and organization changes, with values before and after', async (t) => {
    const changed = await server.request('PATCH', '/v1/org/settings', {
      key: ownerToken.key,
      headers,
      body: { session_idle_timeout_minutes: 60, max_concurrent_sessions: 10, ip_allowlist: [`${inside.split('.').slice(0, 3).join('.')}.0/24`] },
    });
    t.equal(changed.status, 200, changed.text);
    t.same((await latest('organization.settings_updated'))!.details, {
      changes: { session_idle_timeout_minutes: { from: 30, to: 60 }, ip_allowlist: { from: [], to: ['198.51.100.0/24'] } },
    }, 'only what changed');
    const lockOut = await server.request('PATCH', '/v1/org/settings', { key: ownerToken.key, headers, body: { ip_allowlist: ['192.0.2.0/24'] } });
    t.equal(lockOut.status, 409);
    t.equal((await entries('?action=organization.settings_updated')).length, 1, 'a refused save records nothing');
    await server.request('PATCH', '/v1/org', { key: ownerToken.key, headers, body: { slug: 'audited' } });
    t.match((await latest('organization.updated'))!.details, { changes: { slug: { to: 'audited' } } });
    t.match(await latest('organization.updated'), { target: { type: 'organization', id: tenant.orgId }, credential: { type: 'personal_token', id: /^key_/ } });
  });

  await t.test('API keys created and revoked, never with their value', async (t) => {
    const created = await server.request('POST', '/v1/api-keys', { key: ownerToken.key, headers, body: { name: 'ci', permission: 'read' } });
    t.equal(created.status, 201);
    secrets.push(created.body.key);
    t.match(await latest('api_key.created'), {
      actor: { type: 'user', id: ownerToken.userId },
      credential: { type: 'personal_token' },
      target: { type: 'api_key', id: created.body.id },
      details: { name: 'ci', permission: 'read', kind: 'personal' },
    });
    t.equal((await server.request('DELETE', `/v1/api-keys/${created.body.id}`, { key: ownerToken.key, headers })).status, 204);
    t.match(await latest('api_key.revoked'), { target: { type: 'api_key', id: created.body.id }, details: { name: 'ci' } });
    t.equal((await server.request('DELETE', `/v1/api-keys/${created.body.id}`, { key: ownerToken.key, headers })).status, 409);
    t.equal((await entries('?action=api_key.revoked')).length, 1, 'revoking it again records nothing');
    const operatorKey = createServiceKey(server.services, tenant.orgId, server.clock.now, { account: 'deploy' });
    secrets.push(operatorKey);
    t.match(await latest('api_key.created'), { actor: { type: 'operator', id: null }, credential: null, ip: null }, 'the operator path is recorded too');
  });

  await t.test('user changes: profile, role, disabling (which ends their sessions)', async (t) => {
    const member = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const session = await signIn(server, member.email, undefined, { ip: inside });
    secrets.push(session.token, session.csrfToken, 'a-new-long-passphrase-42');
    const updated = await server.request('PATCH', '/v1/user', {
      headers: { ...session.headers(), ...headers },
      body: { name: 'Mem Ber', current_password: testPassword, password: 'a-new-long-passphrase-42' },
    });
    t.equal(updated.status, 200, updated.text);
    t.match(await latest('user.updated'), { actor: { id: member.userId }, target: { id: member.userId }, details: { changed: ['name', 'password'] } });

    server.services.accounts.users.changeRole(operatorOrigin(tenant.orgId), member.userId, 'viewer', server.clock.now);
    t.match(await latest('user.role_changed'), { actor: { type: 'operator' }, target: { type: 'user', id: member.userId }, details: { from: 'member', to: 'viewer' } });
    server.services.accounts.users.changeRole(operatorOrigin(tenant.orgId), member.userId, 'viewer', server.clock.now);
    t.equal((await entries('?action=user.role_changed')).length, 1, 'no change, no entry');

    server.services.accounts.users.disable(operatorOrigin(tenant.orgId), member.userId, server.clock.now);
    t.match(await latest('user.disabled'), { target: { type: 'user', id: member.userId } });
    t.match(await latest('session.revoked_others'), { target: { id: member.userId }, details: { count: 1 } });
  });

  await t.test('allowlist refusals: one entry per actor in 10 minutes, the next counting those left out', async (t) => {
    for (let i = 0; i < 5; i++) {
      const refused = await server.request('GET', '/v1/databases', { key: tenant.key, headers: { 'x-forwarded-for': outside } });
      t.equal(refused.body.error.code, 'ip_not_allowed');
    }
    let refusals = await entries('?action=ip_allowlist.refused');
    t.equal(refusals.length, 1, 'a flood of refused requests is one entry');
    t.match(refusals[0], { actor: { type: 'service_account' }, credential: { type: 'service_account_key' }, ip: outside, details: { unrecorded: 0 } });
    advance(10 * minute);
    await server.request('GET', '/v1/databases', { key: tenant.key, headers: { 'x-forwarded-for': outside } });
    refusals = await entries('?action=ip_allowlist.refused');
    t.equal(refusals.length, 2);
    t.same(refusals[0]!.details, { unrecorded: 4 });
    const person = await server.request('GET', '/v1/databases', { key: ownerToken.key, headers: { 'x-forwarded-for': outside } });
    t.equal(person.status, 403);
    t.equal((await entries('?action=ip_allowlist.refused')).length, 3, 'another actor has its own window');
  });

  await t.test('owners and admins only; members, viewers and service accounts are refused', async (t) => {
    const admin = createUserKey(server.services, tenant.orgId, server.clock.now, 'admin', 'read', ['api_keys']);
    t.equal((await server.request('GET', '/v1/audit-log', { key: admin.key, headers })).status, 200, 'an admin, with a read token');
    for (const role of ['member', 'viewer'] as const) {
      const user = await createPasswordUser(server.services, tenant.orgId, role, server.clock.now);
      const session = await signIn(server, user.email, undefined, { ip: inside });
      const refused = await server.request('GET', '/v1/audit-log', { headers: { ...session.headers(), ...headers } });
      t.equal(refused.status, 403, `a ${role}'s session`);
      const token = createUserKey(server.services, tenant.orgId, server.clock.now, role, 'write', ['api_keys']);
      t.equal((await server.request('GET', '/v1/audit-log', { key: token.key, headers })).status, 403, `a ${role}'s token`);
    }
    const serviceKey = createServiceKey(server.services, tenant.orgId, server.clock.now, { account: 'auditor', scopes: ['api_keys'] });
    t.equal((await server.request('GET', '/v1/audit-log', { key: serviceKey, headers })).status, 403, 'a service account has no role');
    const narrow = createUserKey(server.services, tenant.orgId, server.clock.now, 'owner', 'read', ['databases']);
    t.equal((await server.request('GET', '/v1/audit-log', { key: narrow.key, headers })).status, 403, "an owner's token without the api_keys scope");
    const other = createTenant(server.services, server.clock.now, 'enterprise');
    const otherOwner = createUserKey(server.services, other.orgId, server.clock.now, 'owner', 'read', ['api_keys']);
    const foreign = await server.request('GET', '/v1/audit-log', { key: otherOwner.key });
    t.same(
      foreign.body.data.map((entry: Entry) => [entry.action, entry.actor?.type]),
      [['api_key.created', 'operator'], ['api_key.created', 'operator']],
      "another organization's owner sees only its own two keys' creation",
    );
  });

  await t.test('filters and paging', async (t) => {
    const byOwner = await entries(`?actor=${owner.userId}&per_page=100`);
    t.ok(byOwner.length > 3);
    t.ok(byOwner.every((entry) => entry.actor?.id === owner.userId));
    const all = await entries('?per_page=100');
    t.same(all.map((entry) => entry.created_at), [...all.map((entry) => entry.created_at)].sort().reverse(), 'newest first');
    const cut = all.find((entry) => entry.created_at !== all.at(-1)!.created_at)!.created_at;
    const from = await entries(`?per_page=100&from=${encodeURIComponent(cut)}`);
    const to = await entries(`?per_page=100&to=${encodeURIComponent(cut)}`);
    t.ok(from.every((entry) => entry.created_at >= cut) && to.every((entry) => entry.created_at < cut));
    t.equal(from.length + to.length, all.length, 'from is inclusive, to exclusive');
    const page = await server.request('GET', '/v1/audit-log?per_page=2&page=2', { key: ownerToken.key, headers });
    t.equal(page.body.data.length, 2);
    t.same(page.body.pagination, { total: all.length, page: 2, per_page: 2 });
    t.same(page.body.data.map((entry: Entry) => entry.id), all.slice(2, 4).map((entry) => entry.id));
    t.match(page.headers.get('link'), /rel="next"/);
    for (const bad of ['?action=nothing.happened', '?from=yesterday', '?per_page=101', '?colour=red']) {
      t.equal((await server.request('GET', `/v1/audit-log${bad}`, { key: ownerToken.key, headers })).status, 400, bad);
    }
  });

  await t.test('no entry holds a key, password, session cookie or CSRF token', async (t) => {
    const table = JSON.stringify(server.db.prepare('SELECT * FROM audit_log').all());
    const listed = JSON.stringify(await entries('?per_page=100'));
    t.ok(secrets.length >= 10);
    for (const secret of secrets) {
      t.notOk(table.includes(secret), 'not in the table');
      t.notOk(listed.includes(secret), 'not in the API');
    }
  });

  await t.test('append-only: the table refuses updates', async (t) => {
    t.throws(() => server.db.prepare("UPDATE audit_log SET action = 'nothing'").run(), /append-only/);
  });
});

t.test('a non-enterprise organization is audited but never refused by address', async (t) => {
  const server: TestServer = await startTestServer({ trustedProxies: ['127.0.0.1'] });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now, 'pro');
  t.equal((await server.request('GET', '/v1/databases', { key: tenant.key, headers: { 'x-forwarded-for': outside } })).status, 200);
  t.equal(server.db.prepare("SELECT count(*) FROM audit_log WHERE action = 'ip_allowlist.refused'").pluck().get(), 0);
});
