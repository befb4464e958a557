import t from 'tap';
import { createTenant, createUserKey, startTestServer } from '../../../helpers/test-server.js';
import { createPasswordUser, signIn, testPassword } from '../../../helpers/sign-in.js';

t.test("the caller's own profile", async (t) => {
  const server = await startTestServer();
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now);

  await t.test('GET /v1/user: csrf_token for a session only; a service account has no profile', async (t) => {
    const { userId, email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const session = await signIn(server, email);
    const viaSession = await server.request('GET', '/v1/user', { headers: session.headers() });
    t.match(viaSession.body, { id: userId, email, role: 'member', status: 'active', two_factor_enabled: false, csrf_token: session.csrfToken });
    t.equal(viaSession.headers.get('cache-control'), 'no-store');
    const token = createUserKey(server.services, tenant.orgId, server.clock.now, 'viewer');
    const viaToken = await server.request('GET', '/v1/user', { key: token.key });
    t.equal(viaToken.body.id, token.userId);
    t.notOk('csrf_token' in viaToken.body);
    const serviceAccount = await server.request('GET', '/v1/user', { key: tenant.key });
    t.equal(serviceAccount.status, 403);
    t.equal(serviceAccount.body.error.code, 'credential_not_accepted');
  });

  await t.test('a viewer renames themselves; a read token may not', async (t) => {
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'viewer', server.clock.now);
    const session = await signIn(server, email);
    const renamed = await server.request('PATCH', '/v1/user', { headers: session.headers(), body: { name: '  Vera Viewer ' } });
    t.equal(renamed.status, 200, renamed.text);
    t.equal(renamed.body.name, 'Vera Viewer');
    const readToken = createUserKey(server.services, tenant.orgId, server.clock.now, 'admin', 'read', ['api_keys']);
    const refused = await server.request('PATCH', '/v1/user', { key: readToken.key, body: { name: 'x' } });
    t.equal(refused.status, 403);
    t.equal(refused.body.error.code, 'insufficient_permission');
  });

  await t.test('a password change needs the current password, a good new one, and ends the other sessions', async (t) => {
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const [here, elsewhere] = [await signIn(server, email), await signIn(server, email)];
    const change = (body: object) => server.request('PATCH', '/v1/user', { headers: here.headers(), body });
    const missing = await change({ password: 'a-brand-new-passphrase' });
    t.equal(missing.body.error.code, 'missing_required_parameter');
    const wrong = await change({ password: 'a-brand-new-passphrase', current_password: 'not-my-password' });
    t.equal(wrong.status, 400);
    t.match(wrong.body.error, { code: 'invalid_parameter', param: 'current_password' });
    const short = await change({ password: 'short', current_password: testPassword });
    t.match(short.body.error, { code: 'invalid_parameter', param: 'password' });
    const common = await change({ password: 'qwerty123456', current_password: testPassword });
    t.match(common.body.error, { code: 'password_too_common', param: 'password' }, 'a password from the common list');
    const ownEmail = await change({ password: email.toUpperCase(), current_password: testPassword });
    t.equal(ownEmail.body.error.code, 'password_too_common', 'the email address itself');
    t.equal((await server.request('GET', '/v1/user', { headers: elsewhere.headers() })).status, 200, 'refused changes end nothing');

    const changed = await change({ password: 'a-brand-new-passphrase', current_password: testPassword });
    t.equal(changed.status, 200, changed.text);
    t.equal((await server.request('GET', '/v1/user', { headers: here.headers() })).status, 200, 'the session that changed it stays');
    t.equal((await server.request('GET', '/v1/user', { headers: elsewhere.headers() })).status, 401, 'the others end');
    t.ok(await signIn(server, email, 'a-brand-new-passphrase'), 'the new password signs in');
  });

  await t.test('unknown fields are refused', async (t) => {
    const token = createUserKey(server.services, tenant.orgId, server.clock.now, 'member', 'write', ['api_keys']);
    const response = await server.request('PATCH', '/v1/user', { key: token.key, body: { role: 'owner' } });
    t.equal(response.status, 400);
    t.equal(response.body.error.code, 'unknown_parameter');
  });
});
