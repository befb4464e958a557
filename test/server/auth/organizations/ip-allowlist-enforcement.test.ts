import t from 'tap';
import { operatorOrigin } from '../../../../server/auth/audit/audit-origin.js';
import { createServiceKey, createTenant, createUserKey, startTestServer, type RequestOptions, type TestServer } from '../../../helpers/test-server.js';
import { createPasswordUser, signIn } from '../../../helpers/sign-in.js';

const inside = '198.51.100.7';
const outside = '203.0.113.9';
const allowlist = ['198.51.100.0/24', '::ffff:10.0.0.0/104', '2001:db8::/32'];

/** A request as the trusted proxy in front of the server (127.0.0.1) reports it: from `client`. */
function from(server: TestServer, client: string, method: string, path: string, options: RequestOptions = {}) {
  return server.request(method, path, { ...options, headers: { ...options.headers, 'x-forwarded-for': client } });
}

t.test('the IP allowlist refuses every credential of the organization from elsewhere', async (t) => {
  const server = await startTestServer({ trustedProxies: ['127.0.0.1'] });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now, 'enterprise');
  const owner = await createPasswordUser(server.services, tenant.orgId, 'owner', server.clock.now);
  const ownerSession = await signIn(server, owner.email, undefined, { ip: inside });
  const saved = await from(server, inside, 'PATCH', '/v1/org/settings', { headers: ownerSession.headers(), body: { ip_allowlist: allowlist } });
  t.equal(saved.status, 200, saved.text);

  await t.test('an API key: inside the list by address, CIDR, IPv4-mapped form and IPv6 range; refused outside', async (t) => {
    for (const client of [inside, '198.51.100.200', `::ffff:${inside}`, '10.20.30.40', '::ffff:10.0.0.1', '2001:db8::5']) {
      const allowed = await from(server, client, 'GET', '/v1/databases', { key: tenant.key });
      t.equal(allowed.status, 200, `${client} is in the list`);
    }
    for (const client of [outside, `::ffff:${outside}`, '11.0.0.1', '2001:db9::1', '198.51.101.1']) {
      const refused = await from(server, client, 'GET', '/v1/databases', { key: tenant.key });
      t.equal(refused.status, 403, `${client} is not in the list`);
      t.match(refused.body.error, { type: 'permission_error', code: 'ip_not_allowed' });
    }
  });

  await t.test('a personal token and a browser session', async (t) => {
    const personal = createUserKey(server.services, tenant.orgId, server.clock.now, 'admin');
    t.equal((await from(server, outside, 'GET', '/v1/user', { key: personal.key })).body.error?.code, 'ip_not_allowed');
    t.equal((await from(server, inside, 'GET', '/v1/user', { key: personal.key })).status, 200);
    const member = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const session = await signIn(server, member.email, undefined, { ip: inside });
    const refused = await from(server, outside, 'GET', '/v1/user', { headers: session.headers() });
    t.equal(refused.status, 403);
    t.equal(refused.body.error.code, 'ip_not_allowed');
    const write = await from(server, outside, 'POST', '/v1/sessions/revoke-others', { headers: session.headers() });
    t.equal(write.body.error.code, 'ip_not_allowed', 'nor may it write');
    t.equal((await from(server, `::ffff:${inside}`, 'GET', '/v1/user', { headers: session.headers() })).status, 200, 'IPv4-mapped client');
  });

  await t.test('an agent key on /v1/agent/*', async (t) => {
    const agentKey = createServiceKey(server.services, tenant.orgId, server.clock.now, { scopes: ['agent'], account: 'agents' });
    const refused = await from(server, outside, 'GET', '/v1/agent/assignments', { key: agentKey });
    t.equal(refused.status, 403);
    t.equal(refused.body.error.code, 'ip_not_allowed');
    t.equal((await from(server, '10.9.8.7', 'GET', '/v1/agent/assignments', { key: agentKey })).status, 200);
  });

  await t.test('a refused request is counted against its address, not against the credential', async (t) => {
    const before = Number((await from(server, inside, 'GET', '/v1/databases', { key: tenant.key })).headers.get('x-ratelimit-remaining'));
    await from(server, '203.0.113.77', 'GET', '/v1/databases', { key: tenant.key });
    const after = Number((await from(server, inside, 'GET', '/v1/databases', { key: tenant.key })).headers.get('x-ratelimit-remaining'));
    t.equal(after, before - 1, 'a stolen key used from elsewhere cannot spend its owner’s budget');
  });

  await t.test('a new list applies from the next request; an emptied one restricts nothing', async (t) => {
    t.equal((await from(server, '192.0.2.1', 'GET', '/v1/databases', { key: tenant.key })).status, 403);
    const widened = await from(server, inside, 'PATCH', '/v1/org/settings', {
      headers: ownerSession.headers(),
      body: { ip_allowlist: [...allowlist, '192.0.2.0/24'] },
    });
    t.equal(widened.status, 200);
    t.equal((await from(server, '192.0.2.1', 'GET', '/v1/databases', { key: tenant.key })).status, 200, 'the cached list was dropped on save');
    await from(server, inside, 'PATCH', '/v1/org/settings', { headers: ownerSession.headers(), body: { ip_allowlist: allowlist } });
    t.equal((await from(server, '192.0.2.1', 'GET', '/v1/databases', { key: tenant.key })).status, 403, 'narrowed again at once');
    server.services.accounts.organizationSettings.update(operatorOrigin(tenant.orgId), { ip_allowlist: [] }, server.clock.now);
    t.equal((await from(server, outside, 'GET', '/v1/databases', { key: tenant.key })).status, 200);
    server.services.accounts.organizationSettings.update(operatorOrigin(tenant.orgId), { ip_allowlist: allowlist }, server.clock.now);
  });

  await t.test('the lock-out check on save uses the same matcher (IPv4-mapped caller, CIDR)', async (t) => {
    const mapped = await from(server, `::ffff:${inside}`, 'PATCH', '/v1/org/settings', { headers: ownerSession.headers(), body: { ip_allowlist: ['198.51.100.0/24'] } });
    t.equal(mapped.status, 200, mapped.text);
    const lockOut = await from(server, inside, 'PATCH', '/v1/org/settings', { headers: ownerSession.headers(), body: { ip_allowlist: ['::ffff:203.0.113.0/120'] } });
    t.equal(lockOut.status, 409);
    t.equal(lockOut.body.error.code, 'would_lock_out');
    await from(server, inside, 'PATCH', '/v1/org/settings', { headers: ownerSession.headers(), body: { ip_allowlist: allowlist } });
  });

  await t.test('another organization without a list is not restricted', async (t) => {
    const other = createTenant(server.services, server.clock.now, 'enterprise');
    t.equal((await from(server, outside, 'GET', '/v1/databases', { key: other.key })).status, 200);
  });

  await t.test('a public route answers whatever the credential', async (t) => {
    t.equal((await from(server, outside, 'GET', '/v1/openapi.json', { key: tenant.key })).status, 200);
  });
});

t.test('a forged X-Forwarded-For is not believed without a trusted proxy', async (t) => {
  const server = await startTestServer();
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now, 'enterprise');
  server.services.accounts.organizationSettings.update(operatorOrigin(tenant.orgId), { ip_allowlist: ['203.0.113.0/24'] }, server.clock.now);
  const spoofed = await from(server, '203.0.113.1', 'GET', '/v1/databases', { key: tenant.key });
  t.equal(spoofed.status, 403, 'the peer 127.0.0.1 is the client');
  t.equal(spoofed.body.error.code, 'ip_not_allowed');

  const owner = await createPasswordUser(server.services, tenant.orgId, 'owner', server.clock.now);
  const session = await signIn(server, owner.email);
  const save = await from(server, '203.0.113.1', 'PATCH', '/v1/org/settings', { headers: session.headers(), body: { ip_allowlist: ['203.0.113.0/24'] } });
  t.equal(save.body.error.code, 'ip_not_allowed', 'nor does a forged header let a session from elsewhere in');
});

t.test('only the enterprise plan is restricted: a list kept after a downgrade is not enforced', async (t) => {
  const server = await startTestServer({ trustedProxies: ['127.0.0.1'] });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now, 'enterprise');
  server.services.accounts.organizationSettings.update(operatorOrigin(tenant.orgId), { ip_allowlist: [inside] }, server.clock.now);
  t.equal((await from(server, outside, 'GET', '/v1/databases', { key: tenant.key })).status, 403, 'enforced while enterprise');
  server.db.prepare("UPDATE organizations SET plan = 'pro' WHERE id = ?").run(tenant.orgId);
  t.equal((await from(server, outside, 'GET', '/v1/databases', { key: tenant.key })).status, 200, 'a pro organization is not restricted');
  const free = createTenant(server.services, server.clock.now, 'free');
  t.equal((await from(server, outside, 'GET', '/v1/databases', { key: free.key })).status, 200);
});
