import t from 'tap';
import { startFakeIdentityProviders } from '../../../helpers/fake-identity-providers.js';
import { PageClient } from '../../../helpers/page-client.js';
import { createPasswordUser, signIn } from '../../../helpers/sign-in.js';
import { createTenant, createUserKey, startTestServer } from '../../../helpers/test-server.js';

const fake = await startFakeIdentityProviders();
t.teardown(fake.close);
const server = await startTestServer({ providerEndpoints: fake.endpoints });
t.teardown(server.close);
const tenant = createTenant(server.services, server.clock.now, 'enterprise', 'Acme Sign-in');
const admin = createUserKey(server.services, tenant.orgId, server.clock.now, 'admin', 'write', ['databases', 'api_keys']);
const secret = 'github-secret-value-123';
fake.clients.set('gh-client', secret);

t.test('the client secret is write-only, sealed at rest, and the callback address is shown to copy', async (t) => {
  const created = await server.request('PUT', '/v1/org/identity-providers/github', { key: admin.key, body: { client_id: 'gh-client', client_secret: secret, enabled: true } });
  t.equal(created.status, 200);
  t.match(created.body, { provider: 'github', client_id: 'gh-client', client_secret_set: true, enabled: true, base_url: null, tenant: null });
  t.equal(created.body.callback_url, 'http://localhost/auth/github/callback?org=acme-sign-in');
  const stored = server.db.prepare("SELECT client_secret FROM identity_providers WHERE provider = 'github'").pluck().get() as Buffer;
  t.notOk(stored.toString('latin1').includes(secret), 'not stored in the clear');
  const listed = await server.request('GET', '/v1/org/identity-providers', { key: admin.key });
  t.equal(listed.status, 200);
  t.notOk(listed.text.includes(secret), 'never answered');
  t.same(listed.body.data.map((row: { provider: string }) => row.provider), ['github']);

  const changed = await server.request('PUT', '/v1/org/identity-providers/github', { key: admin.key, body: { client_id: 'gh-client', enabled: false } });
  t.equal(changed.status, 200, 'a change without a secret keeps the saved one');
  t.equal(changed.body.enabled, false);
  t.equal((await server.request('POST', '/v1/org/identity-providers/github/test', { key: admin.key })).body.ok, true, 'the kept secret still works');

  const audit = await server.request('GET', '/v1/audit-log?action=identity_provider.updated', { key: admin.key });
  t.equal(audit.body.data.length, 2);
  t.notOk(audit.text.includes(secret), 'the audit log holds no secret');
});

t.test('only admins set providers up; the first save needs a secret; provider-specific fields', async (t) => {
  const member = createUserKey(server.services, tenant.orgId, server.clock.now, 'member', 'write', ['databases', 'api_keys']);
  t.equal((await server.request('GET', '/v1/org/identity-providers', { key: member.key })).status, 403);
  t.equal((await server.request('PUT', '/v1/org/identity-providers/google', { key: member.key, body: { client_id: 'x', client_secret: 'y' } })).status, 403);
  const noSecret = await server.request('PUT', '/v1/org/identity-providers/google', { key: admin.key, body: { client_id: 'x' } });
  t.equal(noSecret.status, 400);
  t.equal(noSecret.body.error.param, 'client_secret');
  t.equal((await server.request('PUT', '/v1/org/identity-providers/facebook', { key: admin.key, body: { client_id: 'x', client_secret: 'y' } })).status, 400);
  const plainHttp = await server.request('PUT', '/v1/org/identity-providers/gitlab', { key: admin.key, body: { client_id: 'x', client_secret: 'y', base_url: 'http://gitlab.example.com' } });
  t.equal(plainHttp.status, 400, 'a self-hosted GitLab is https (or loopback)');
  const gitlab = await server.request('PUT', '/v1/org/identity-providers/gitlab', { key: admin.key, body: { client_id: 'x', client_secret: 'y' } });
  t.equal(gitlab.body.base_url, 'https://gitlab.com', 'gitlab.com by default');
  const microsoft = await server.request('PUT', '/v1/org/identity-providers/microsoft', { key: admin.key, body: { client_id: 'x', client_secret: 'y', tenant: 'contoso.example' } });
  t.equal(microsoft.body.tenant, 'contoso.example');
  t.equal((await server.request('DELETE', '/v1/org/identity-providers/microsoft', { key: admin.key })).status, 204);
  t.equal((await server.request('DELETE', '/v1/org/identity-providers/microsoft', { key: admin.key })).status, 404);
  t.equal((await server.request('POST', '/v1/org/identity-providers/microsoft/test', { key: admin.key })).status, 404);
});

t.test('the test action tells a wrong client secret from a right one, for each protocol', async (t) => {
  fake.clients.set('google-client', 'google-secret');
  fake.clients.set('gitlab-client', 'gitlab-secret');
  fake.clients.set('ms-client', 'ms-secret');
  const cases = [
    { provider: 'github', body: { client_id: 'gh-client' } },
    { provider: 'google', body: { client_id: 'google-client' } },
    { provider: 'gitlab', body: { client_id: 'gitlab-client', base_url: fake.gitlabUrl } },
    { provider: 'microsoft', body: { client_id: 'ms-client', tenant: 'tenant-1' } },
  ];
  for (const { provider, body } of cases) {
    const path = `/v1/org/identity-providers/${provider}`;
    await server.request('PUT', path, { key: admin.key, body: { ...body, client_secret: 'wrong' } });
    const wrong = await server.request('POST', `${path}/test`, { key: admin.key });
    t.equal(wrong.status, 200);
    t.equal(wrong.body.ok, false, `${provider}: a wrong secret fails (${wrong.body.message})`);
    await server.request('PUT', path, { key: admin.key, body: { ...body, client_secret: fake.clients.get(body.client_id)! } });
    const right = await server.request('POST', `${path}/test`, { key: admin.key });
    t.equal(right.body.ok, true, `${provider}: the right one passes (${right.body.message})`);
  }
});

t.test('the settings page: owners and admins only, and its forms need the session\'s CSRF token', async (t) => {
  const browserOf = async (role: 'admin' | 'member') => {
    const session = await signIn(server, (await createPasswordUser(server.services, tenant.orgId, role, server.clock.now)).email);
    const client = new PageClient(server.url);
    client.cookies.set('dbmon_session', session.token);
    return { client, session };
  };
  const member = await browserOf('member');
  t.equal((await member.client.get('/settings/sign-in-providers')).status, 403, 'a member is refused');
  const adminBrowser = await browserOf('admin');
  const page = await adminBrowser.client.get('/settings/sign-in-providers');
  t.equal(page.status, 200);
  t.notOk(page.text.includes(secret), 'no secret on the page');
  const forged = await adminBrowser.client.postForm('/settings/sign-in-providers/github/remove', {});
  t.equal(forged.status, 403, 'a post without the CSRF token changes nothing');
  t.equal((await server.request('GET', '/v1/org/identity-providers', { key: admin.key })).body.data.some((row: { provider: string }) => row.provider === 'github'), true);
  const invalid = await adminBrowser.client.postForm('/settings/sign-in-providers/gitlab', { csrf_token: adminBrowser.session.csrfToken, client_id: 'x', base_url: 'http://gitlab.example.com' });
  t.equal(invalid.status, 400);
  t.match(invalid.text, 'GitLab was not saved');
});
