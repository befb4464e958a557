import t from 'tap';
import { operatorOrigin } from '../../../../server/auth/audit/audit-origin.js';
import { createServiceKey, createTenant, createUserKey, startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { createPasswordUser, signIn } from '../../../helpers/sign-in.js';

const minute = 60_000;

function advance(server: TestServer, ms: number): void {
  server.clock.now = new Date(server.clock.now.getTime() + ms);
}

t.test('browser sessions as API credentials', async (t) => {
  const server = await startTestServer();
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now);
  const setIdle = (minutes: number) =>
    server.services.accounts.organizationSettings.update(operatorOrigin(tenant.orgId), { session_idle_timeout_minutes: minutes }, server.clock.now);

  await t.test('a session reads the API, and its cookie is HttpOnly, SameSite=Lax, Path=/, not Secure under http', async (t) => {
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const session = await signIn(server, email);
    t.match(session.sessionId, /^sess_[0-9A-Za-z]{22}$/);
    t.match(session.token, /^[0-9A-Za-z]{43}$/, 'about 256 bits');
    const stored = server.db.prepare('SELECT * FROM sessions WHERE id = ?').get(session.sessionId) as Record<string, unknown>;
    t.notOk(JSON.stringify(stored).includes(session.token), 'only a hash of the cookie value is stored');
    t.not(session.sessionId, session.token, 'the public id is not the secret');

    const response = await server.request('GET', '/v1/databases', { headers: session.headers({ csrf: false }) });
    t.equal(response.status, 200, response.text);

    const revoked = await server.request('DELETE', `/v1/sessions/${session.sessionId}`, { headers: session.headers() });
    t.equal(revoked.status, 204);
    t.equal(revoked.headers.get('set-cookie'), 'dbmon_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0', 'signing out clears the cookie');
    const after = await server.request('GET', '/v1/databases', { headers: session.headers() });
    t.equal(after.status, 401);
    t.equal(after.body.error.code, 'invalid_session');
  });

  await t.test('session fixation: signing in gives a new id and ends the session the browser held', async (t) => {
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const first = await signIn(server, email);
    const outcome = await server.services.accounts.signIn.signIn(
      { email, password: 'plum-kettle-orbit-7', ip: '127.0.0.1', userAgent: 'test', currentToken: first.token },
      server.clock.now,
    );
    if (outcome.kind !== 'signed_in') throw new Error('no second factor was set up');
    const second = outcome;
    t.not(second.token, first.token);
    t.not(second.id, first.sessionId);
    t.equal((await server.request('GET', '/v1/user', { headers: first.headers() })).status, 401, 'the session held before no longer works');
    t.equal((await server.request('GET', '/v1/user', { headers: { cookie: `dbmon_session=${second.token}` } })).status, 200);
    const planted = await server.request('GET', '/v1/user', { headers: { cookie: `dbmon_session=${'A'.repeat(43)}` } });
    t.equal(planted.status, 401, 'a value the server never issued is no session');
  });

  await t.test('idle expiry, with the injected clock', async (t) => {
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const session = await signIn(server, email);
    advance(server, 29 * minute);
    t.equal((await server.request('GET', '/v1/user', { headers: session.headers() })).status, 200, 'used within 30 minutes');
    advance(server, 29 * minute);
    t.equal((await server.request('GET', '/v1/user', { headers: session.headers() })).status, 200, 'use moved the idle deadline');
    advance(server, 30 * minute);
    const expired = await server.request('GET', '/v1/user', { headers: session.headers() });
    t.equal(expired.status, 401);
    t.equal(expired.body.error.code, 'session_expired');
    t.match(expired.headers.get('set-cookie'), /^dbmon_session=;.*Max-Age=0/, 'the dead cookie is cleared');
  });

  await t.test('absolute expiry: busy sessions end at the maximum duration', async (t) => {
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const session = await signIn(server, email);
    server.services.accounts.organizationSettings.update(operatorOrigin(tenant.orgId), { session_max_duration_hours: 1 }, server.clock.now);
    t.teardown(() => server.services.accounts.organizationSettings.update(operatorOrigin(tenant.orgId), { session_max_duration_hours: 168 }, server.clock.now));
    for (let step = 0; step < 5; step++) {
      advance(server, 11 * minute);
      t.equal((await server.request('GET', '/v1/user', { headers: session.headers() })).status, 200);
    }
    advance(server, 6 * minute);
    const ended = await server.request('GET', '/v1/user', { headers: session.headers() });
    t.equal(ended.status, 401, 'an hour after sign-in, however busy');
    t.equal(ended.body.error.code, 'session_expired');
  });

  await t.test('a shortened idle timeout applies to an existing session at once', async (t) => {
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const session = await signIn(server, email);
    advance(server, 10 * minute);
    t.equal((await server.request('GET', '/v1/user', { headers: session.headers() })).status, 200);
    advance(server, 6 * minute);
    setIdle(5);
    t.teardown(() => setIdle(30));
    const refused = await server.request('GET', '/v1/user', { headers: session.headers() });
    t.equal(refused.status, 401, '6 minutes idle is past the new 5-minute timeout');
    t.equal(refused.body.error.code, 'session_expired');
  });

  await t.test('the 11th session evicts the oldest', async (t) => {
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const sessions = [];
    for (let index = 0; index < 11; index++) {
      sessions.push(await signIn(server, email));
      advance(server, 1000);
    }
    t.equal((await server.request('GET', '/v1/user', { headers: sessions[0]!.headers() })).status, 401, 'the oldest ended');
    const listed = await server.request('GET', '/v1/sessions', { headers: sessions[10]!.headers() });
    t.equal(listed.status, 200);
    t.equal(listed.body.pagination.total, 10);
    t.same(
      listed.body.data.map((session: { id: string }) => session.id),
      sessions.slice(1, 11).map((session) => session.sessionId),
    );
    t.same(
      listed.body.data.map((session: { current: boolean }) => session.current),
      [...Array(9).fill(false), true],
    );
  });

  await t.test('GET /v1/sessions parses the User-Agent and shows the address', async (t) => {
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const session = await signIn(server, email, undefined, {
      ip: '203.0.113.9',
      userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
    });
    const listed = await server.request('GET', '/v1/sessions', { headers: session.headers() });
    const [record] = listed.body.data;
    t.match(record, { id: session.sessionId, device: 'mobile', browser: 'Mobile Safari 17', os: 'iOS 17.4', ip: '203.0.113.9', location: null, current: true });
    t.equal(record.expires_at, new Date(server.clock.now.getTime() + 30 * minute).toISOString());
  });

  await t.test("another user's session is neither listed nor revocable", async (t) => {
    const alice = await createPasswordUser(server.services, tenant.orgId, 'admin', server.clock.now);
    const bob = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const aliceSession = await signIn(server, alice.email);
    const bobSession = await signIn(server, bob.email);
    const listed = await server.request('GET', '/v1/sessions', { headers: aliceSession.headers() });
    t.notOk(listed.text.includes(bobSession.sessionId), "an admin does not see a member's sessions");
    const revoke = await server.request('DELETE', `/v1/sessions/${bobSession.sessionId}`, { headers: aliceSession.headers() });
    t.equal(revoke.status, 404);
    t.equal(revoke.body.error.type, 'not_found');
    t.equal((await server.request('GET', '/v1/user', { headers: bobSession.headers() })).status, 200, "bob's session lives on");
  });

  await t.test('revoke-others ends every other session of the caller only', async (t) => {
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'viewer', server.clock.now);
    const other = await createPasswordUser(server.services, tenant.orgId, 'viewer', server.clock.now);
    const [laptop, phone, bystander] = [await signIn(server, email), await signIn(server, email), await signIn(server, other.email)];
    const response = await server.request('POST', '/v1/sessions/revoke-others', { headers: laptop.headers() });
    t.equal(response.status, 204, 'a viewer manages their own sessions');
    t.equal((await server.request('GET', '/v1/user', { headers: phone.headers() })).status, 401);
    t.equal((await server.request('GET', '/v1/user', { headers: laptop.headers() })).status, 200);
    t.equal((await server.request('GET', '/v1/user', { headers: bystander.headers() })).status, 200);
  });

  await t.test('CSRF: an unsafe method with a session needs the X-CSRF-Token of that session', async (t) => {
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'admin', server.clock.now);
    const session = await signIn(server, email);
    const other = await signIn(server, email);
    const body = { name: 'csrf-db', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' } };
    for (const [label, headers] of [
      ['no header', session.headers({ csrf: false })],
      ['an empty header', { ...session.headers({ csrf: false }), 'x-csrf-token': '' }],
      ["another session's token", { ...session.headers({ csrf: false }), 'x-csrf-token': other.csrfToken }],
    ] as const) {
      const refused = await server.request('POST', '/v1/databases', { headers, body });
      t.equal(refused.status, 403, label);
      t.same(refused.body.error.type, 'permission_error');
      t.same(refused.body.error.code, 'csrf_token_invalid');
    }
    t.equal((await server.request('GET', '/v1/databases', { key: tenant.key })).body.pagination.total, 0, 'nothing was created');
    const user = await server.request('GET', '/v1/user', { headers: session.headers({ csrf: false }) });
    t.equal(user.body.csrf_token, session.csrfToken, 'GET /v1/user tells the token');
    const created = await server.request('POST', '/v1/databases', { headers: session.headers(), body });
    t.equal(created.status, 201, created.text);
  });

  await t.test('a viewer cannot write through a session', async (t) => {
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'viewer', server.clock.now);
    const session = await signIn(server, email);
    const body = { name: 'viewer-db', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' } };
    const refused = await server.request('POST', '/v1/databases', { headers: session.headers(), body });
    t.equal(refused.status, 403);
    t.equal(refused.body.error.code, 'insufficient_permission');
    t.match(refused.body.error.message, /browser session acts for a user whose role viewer has read permission only/);
  });

  await t.test('an agent key is refused on a session endpoint, and a session on /v1/agent/*', async (t) => {
    const agentKey = createServiceKey(server.services, tenant.orgId, server.clock.now, { scopes: ['agent'], account: 'agents' });
    for (const [method, path] of [
      ['GET', '/v1/sessions'],
      ['POST', '/v1/sessions/revoke-others'],
      ['GET', '/v1/user'],
    ] as const) {
      const refused = await server.request(method, path, { key: agentKey });
      t.equal(refused.status, 403, `${method} ${path}`);
      t.equal(refused.body.error.code, 'credential_not_accepted');
    }
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'owner', server.clock.now);
    const session = await signIn(server, email);
    const assignments = await server.request('GET', '/v1/agent/assignments', { headers: session.headers() });
    t.equal(assignments.status, 403);
    t.equal(assignments.body.error.code, 'credential_not_accepted');
    const samples = await server.request('POST', '/v1/agent/samples', { headers: session.headers(), body: {} });
    t.equal(samples.status, 403);
    const personal = createUserKey(server.services, tenant.orgId, server.clock.now, 'owner', 'write', ['agent']);
    t.equal((await server.request('GET', '/v1/agent/assignments', { key: personal.key })).body.error.code, 'credential_not_accepted', 'nor a personal token with the agent scope');
  });

  await t.test('an Authorization header that fails never falls back to the session cookie beside it', async (t) => {
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const session = await signIn(server, email);
    const response = await server.request('GET', '/v1/user', { headers: { ...session.headers(), authorization: 'Bearer nonsense' } });
    t.equal(response.status, 401);
    t.equal(response.body.error.code, 'malformed_api_key');
  });

  await t.test('a role change renews the session id; disabling the user ends the session', async (t) => {
    const { userId, email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const session = await signIn(server, email);
    server.services.identity.setUserRole(tenant.orgId, userId, 'admin');
    const renewed = await server.request('GET', '/v1/user', { headers: session.headers() });
    t.equal(renewed.status, 200);
    t.equal(renewed.body.role, 'admin', 'the role in force is the one at request time');
    const cookie = /^dbmon_session=([0-9A-Za-z]{43}); Path=\/; HttpOnly; SameSite=Lax$/.exec(renewed.headers.get('set-cookie') ?? '');
    t.ok(cookie, 'a new cookie is set');
    t.not(cookie?.[1], session.token);
    t.equal((await server.request('GET', '/v1/user', { headers: session.headers() })).status, 401, 'the old value no longer works');
    const fresh = { cookie: `dbmon_session=${cookie?.[1]}`, 'x-csrf-token': session.csrfToken };
    t.equal((await server.request('GET', '/v1/sessions', { headers: fresh })).body.data[0].id, session.sessionId, 'the same session, listed by the same id');

    server.services.accounts.users.disable(operatorOrigin(tenant.orgId), userId, server.clock.now);
    const disabled = await server.request('GET', '/v1/user', { headers: fresh });
    t.equal(disabled.status, 401);
    t.equal(server.db.prepare('SELECT count(*) FROM sessions WHERE user_id = ?').pluck().get(userId), 0, 'its sessions are gone');
  });

  await t.test('/v1 is matched exactly', async (t) => {
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const session = await signIn(server, email);
    for (const path of ['/V1/databases', '/v1/databases/', '/v1/Sessions']) {
      const response = await server.request('GET', path, { headers: session.headers() });
      t.equal(response.status, 404, path);
      t.equal(response.body.error.code, 'resource_missing');
    }
  });
});

t.test('under an https public URL the cookie is __Host-dbmon_session and Secure', async (t) => {
  const server = await startTestServer({ publicUrl: 'https://dbmon.example.test' });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now);
  const { userId, email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
  const session = await signIn(server, email, undefined, { cookieName: '__Host-dbmon_session' });
  t.equal((await server.request('GET', '/v1/user', { headers: session.headers() })).status, 200);
  const plain = await server.request('GET', '/v1/user', { headers: { cookie: `dbmon_session=${session.token}` } });
  t.equal(plain.status, 401, 'the cookie without the prefix, which a subdomain could set, is not read');
  server.services.identity.setUserRole(tenant.orgId, userId, 'viewer');
  const renewed = await server.request('GET', '/v1/user', { headers: session.headers() });
  t.match(renewed.headers.get('set-cookie'), /^__Host-dbmon_session=[0-9A-Za-z]{43}; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
});
