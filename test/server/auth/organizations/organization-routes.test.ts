import t from 'tap';
import { createTenant, createUserKey, startTestServer } from '../../../helpers/test-server.js';
import { createPasswordUser, signIn } from '../../../helpers/sign-in.js';

const defaults = {
  session_idle_timeout_minutes: 30,
  session_max_duration_hours: 168,
  max_concurrent_sessions: 10,
  require_two_factor: false,
  two_factor_grace_period_days: 7,
  ip_allowlist: [],
  allow_auto_apply: false,
};

t.test('the organization and its settings', async (t) => {
  const server = await startTestServer();
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now, 'enterprise', 'Acme Monitoring');
  const owner = await createPasswordUser(server.services, tenant.orgId, 'owner', server.clock.now);
  const ownerSession = await signIn(server, owner.email);

  await t.test('GET /v1/org for any credential; GET /v1/org/settings gives the defaults to an owner', async (t) => {
    const org = await server.request('GET', '/v1/org', { key: tenant.key });
    t.match(org.body, { id: tenant.orgId, name: 'Acme Monitoring', slug: 'acme-monitoring', plan: 'enterprise' });
    const settings = await server.request('GET', '/v1/org/settings', { headers: ownerSession.headers() });
    t.equal(settings.status, 200);
    t.same(settings.body, defaults);
  });

  await t.test('a member cannot read or change settings, nor rename the organization; a service account neither', async (t) => {
    const member = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const session = await signIn(server, member.email);
    for (const [method, path, body] of [
      ['GET', '/v1/org/settings', undefined],
      ['PATCH', '/v1/org/settings', { session_idle_timeout_minutes: 1440 }],
      ['PATCH', '/v1/org', { name: 'Taken Over' }],
    ] as const) {
      const refused = await server.request(method, path, { headers: session.headers(), ...(body && { body }) });
      t.equal(refused.status, 403, `${method} ${path}`);
      t.equal(refused.body.error.code, 'insufficient_permission');
    }
    const serviceAccount = await server.request('PATCH', '/v1/org/settings', { key: tenant.key, body: { max_concurrent_sessions: 100 } });
    t.equal(serviceAccount.body.error.code, 'credential_not_accepted');
    const narrowToken = createUserKey(server.services, tenant.orgId, server.clock.now, 'admin', 'write', ['databases']);
    const narrow = await server.request('PATCH', '/v1/org/settings', { key: narrowToken.key, body: { max_concurrent_sessions: 100 } });
    t.equal(narrow.status, 403, 'a token without the api_keys scope');
    t.same((await server.request('GET', '/v1/org/settings', { headers: ownerSession.headers() })).body, defaults, 'nothing changed');
  });

  await t.test('an admin changes settings within the ranges; out of range is 400', async (t) => {
    const admin = await createPasswordUser(server.services, tenant.orgId, 'admin', server.clock.now);
    const session = await signIn(server, admin.email);
    const patch = (body: object) => server.request('PATCH', '/v1/org/settings', { headers: session.headers(), body });
    for (const body of [
      { session_idle_timeout_minutes: 4 },
      { session_idle_timeout_minutes: 1441 },
      { session_max_duration_hours: 0 },
      { session_max_duration_hours: 721 },
      { max_concurrent_sessions: 101 },
      { two_factor_grace_period_days: 91 },
      { ip_allowlist: ['10.0.0.0/33'] },
      { unknown_setting: true },
    ]) {
      t.equal((await patch(body)).status, 400, JSON.stringify(body));
    }
    const changed = await patch({ session_idle_timeout_minutes: 5, require_two_factor: true, allow_auto_apply: true });
    t.equal(changed.status, 200, changed.text);
    t.match(changed.body, { session_idle_timeout_minutes: 5, require_two_factor: true, allow_auto_apply: true, max_concurrent_sessions: 10 });
    t.ok(server.services.optimizations.autoApplyAllowed(tenant.orgId), 'allow_auto_apply is the setting optimizations obey');
    await patch({ session_idle_timeout_minutes: 30, require_two_factor: false, allow_auto_apply: false });
  });

  await t.test('the IP allowlist: validated, stored, enterprise only, and never shutting out the caller', async (t) => {
    const lockOut = await server.request('PATCH', '/v1/org/settings', { headers: ownerSession.headers(), body: { ip_allowlist: ['203.0.113.0/24'] } });
    t.equal(lockOut.status, 409);
    t.equal(lockOut.body.error.code, 'would_lock_out');
    const saved = await server.request('PATCH', '/v1/org/settings', {
      headers: ownerSession.headers(),
      body: { ip_allowlist: ['203.0.113.0/24', '::ffff:127.0.0.0/104', '2001:db8::/32'] },
    });
    t.equal(saved.status, 200, 'the caller (127.0.0.1) matches an IPv4-mapped range');
    t.same(saved.body.ip_allowlist, ['203.0.113.0/24', '::ffff:127.0.0.0/104', '2001:db8::/32']);
    await server.request('PATCH', '/v1/org/settings', { headers: ownerSession.headers(), body: { ip_allowlist: [] } });

    const free = createTenant(server.services, server.clock.now, 'free');
    const freeOwner = await createPasswordUser(server.services, free.orgId, 'owner', server.clock.now);
    const freeSession = await signIn(server, freeOwner.email);
    const refused = await server.request('PATCH', '/v1/org/settings', { headers: freeSession.headers(), body: { ip_allowlist: ['127.0.0.1'] } });
    t.equal(refused.status, 403);
    t.equal(refused.body.error.code, 'plan_required');
    t.equal((await server.request('PATCH', '/v1/org/settings', { headers: freeSession.headers(), body: { ip_allowlist: [] } })).status, 200, 'an empty list is no restriction');
  });

  await t.test('PATCH /v1/org renames, with a unique slug', async (t) => {
    const renamed = await server.request('PATCH', '/v1/org', { headers: ownerSession.headers(), body: { name: 'Acme Data' } });
    t.match(renamed.body, { name: 'Acme Data', slug: 'acme-data' });
    const slug = await server.request('PATCH', '/v1/org', { headers: ownerSession.headers(), body: { slug: 'acme' } });
    t.match(slug.body, { name: 'Acme Data', slug: 'acme' });
    createTenant(server.services, server.clock.now, 'pro', 'Other Org');
    const taken = await server.request('PATCH', '/v1/org', { headers: ownerSession.headers(), body: { slug: 'other-org' } });
    t.equal(taken.status, 409);
    t.match(taken.body.error, { code: 'already_exists', param: 'slug' });
    t.equal((await server.request('PATCH', '/v1/org', { headers: ownerSession.headers(), body: { slug: 'Bad Slug' } })).status, 400);
  });
});
