import t from 'tap';
import { createTenant, createUserKey, startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { createPasswordUser, signIn, testPassword, type SignedIn } from '../../../helpers/sign-in.js';

const linkRefused = { name: 'NotFoundError', message: /^This link does not work/ };
const publicUrl = 'http://dbmon.example.test:7117';

async function signedInAs(server: TestServer, orgId: string, role: 'owner' | 'admin' | 'member' | 'viewer'): Promise<SignedIn & { userId: string; email: string }> {
  const user = await createPasswordUser(server.services, orgId, role, server.clock.now);
  return { ...(await signIn(server, user.email)), ...user };
}

t.test('users of the organization', async (t) => {
  const server = await startTestServer({ publicUrl });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now);
  const owner = await signedInAs(server, tenant.orgId, 'owner');
  const admin = await signedInAs(server, tenant.orgId, 'admin');
  const member = await signedInAs(server, tenant.orgId, 'member');
  const viewer = await signedInAs(server, tenant.orgId, 'viewer');
  const roleOf = (userId: string) => server.db.prepare('SELECT role FROM users WHERE id = ?').pluck().get(userId);
  const userCount = () => server.db.prepare('SELECT count(*) FROM users WHERE org_id = ?').pluck().get(tenant.orgId);

  await t.test('members and viewers are refused on every /v1/users write, and on reading the list', async (t) => {
    const narrowToken = createUserKey(server.services, tenant.orgId, server.clock.now, 'admin', 'write', ['databases']);
    const before = userCount();
    for (const caller of [member, viewer]) {
      for (const [method, path, body] of [
        ['POST', '/v1/users', { email: 'intruder@example.test', role: 'admin' }],
        ['PATCH', `/v1/users/${caller.userId}`, { role: 'admin' }],
        ['PATCH', `/v1/users/${admin.userId}`, { status: 'disabled' }],
        ['DELETE', `/v1/users/${owner.userId}`, undefined],
        ['GET', '/v1/users', undefined],
      ] as const) {
        const refused = await server.request(method, path, { headers: caller.headers(), ...(body && { body }) });
        t.equal(refused.status, 403, `${caller.email}: ${method} ${path}`);
        t.equal(refused.body.error.code, 'insufficient_permission');
      }
    }
    const serviceAccount = await server.request('POST', '/v1/users', { key: tenant.key, body: { email: 'robot@example.test', role: 'viewer' } });
    t.equal(serviceAccount.body.error.code, 'credential_not_accepted', 'a service account manages no people');
    t.equal((await server.request('POST', '/v1/users', { key: narrowToken.key, body: { email: 'x@example.test' } })).status, 403, 'a token without the api_keys scope');
    t.equal(userCount(), before, 'nobody was added');
    t.equal(roleOf(member.userId), 'member');
    t.equal(roleOf(admin.userId), 'admin');
    t.equal((await server.request('GET', `/v1/users/${admin.userId}`, { headers: admin.headers() })).status, 200);
  });

  await t.test('an admin can neither create nor promote to owner, nor change, disable or delete an owner', async (t) => {
    const made = await server.request('POST', '/v1/users', { headers: admin.headers(), body: { email: 'new-owner@example.test', role: 'owner' } });
    t.equal(made.status, 403);
    t.equal(made.body.error.code, 'insufficient_permission');
    const promoted = await server.request('PATCH', `/v1/users/${member.userId}`, { headers: admin.headers(), body: { role: 'owner' } });
    t.equal(promoted.status, 403);
    const self = await server.request('PATCH', `/v1/users/${admin.userId}`, { headers: admin.headers(), body: { role: 'owner' } });
    t.equal(self.status, 403, 'nor make itself owner');
    for (const [method, body] of [
      ['PATCH', { role: 'member' }],
      ['PATCH', { status: 'disabled' }],
      ['PATCH', { name: 'Renamed' }],
      ['DELETE', undefined],
    ] as const) {
      const refused = await server.request(method, `/v1/users/${owner.userId}`, { headers: admin.headers(), ...(body && { body }) });
      t.equal(refused.status, 403, `${method} ${JSON.stringify(body)} on an owner`);
    }
    t.equal(roleOf(owner.userId), 'owner');
    t.equal(roleOf(member.userId), 'member');
    t.equal(roleOf(admin.userId), 'admin');
    t.equal((await server.request('GET', '/v1/user', { headers: owner.headers() })).status, 200, 'the owner still signs in');
    const invited = await server.request('POST', '/v1/users', { headers: admin.headers(), body: { email: 'new-admin@example.test', role: 'admin' } });
    t.equal(invited.status, 201, 'an admin invites admins');
  });

  await t.test('nobody removes the last active owner', async (t) => {
    for (const [method, body] of [
      ['PATCH', { role: 'admin' }],
      ['PATCH', { status: 'disabled' }],
      ['DELETE', undefined],
    ] as const) {
      const refused = await server.request(method, `/v1/users/${owner.userId}`, { headers: owner.headers(), ...(body && { body }) });
      t.equal(refused.status, 409, `${method} ${JSON.stringify(body)}`);
      t.equal(refused.body.error.code, 'last_owner');
    }
    const pending = await server.request('POST', '/v1/users', { headers: owner.headers(), body: { email: 'pending-owner@example.test', role: 'owner' } });
    t.equal(pending.status, 201, 'an owner invites an owner');
    t.equal((await server.request('DELETE', `/v1/users/${owner.userId}`, { headers: owner.headers() })).status, 409, 'an invited owner does not count');
    t.equal(roleOf(owner.userId), 'owner');

    const second = await signedInAs(server, tenant.orgId, 'owner');
    const demoted = await server.request('PATCH', `/v1/users/${second.userId}`, { headers: owner.headers(), body: { role: 'admin' } });
    t.equal(demoted.status, 200, 'with another active owner, one may go');
    t.equal(demoted.body.role, 'admin');
    t.equal((await server.request('DELETE', `/v1/users/${pending.body.id}`, { headers: owner.headers() })).status, 204);
  });

  await t.test('POST /v1/users makes an invited user and shows the one-time link once', async (t) => {
    const created = await server.request('POST', '/v1/users', { headers: admin.headers(), body: { email: 'Dana@Example.test', name: 'Dana', role: 'member' } });
    t.equal(created.status, 201, created.text);
    t.equal(created.headers.get('location'), `/v1/users/${created.body.id}`);
    t.equal(created.headers.get('cache-control'), 'no-store');
    t.match(created.body, { email: 'Dana@Example.test', name: 'Dana', role: 'member', status: 'invited', last_sign_in_at: null, two_factor_enabled: false });
    t.match(created.body.invitation, { url: new RegExp(`^${publicUrl}/invitations/[0-9A-Za-z]{43}$`), email_sent: false });
    t.equal(Date.parse(created.body.invitation.expires_at) - server.clock.now.getTime(), 7 * 86_400_000);
    const read = await server.request('GET', `/v1/users/${created.body.id}`, { headers: admin.headers() });
    t.equal(read.body.status, 'invited');
    t.notOk('invitation' in read.body, 'the link is never shown again');
    const taken = await server.request('POST', '/v1/users', { headers: admin.headers(), body: { email: 'dana@example.test' } });
    t.equal(taken.status, 409);
    t.equal(taken.body.error.code, 'already_exists');
    t.equal((await server.request('POST', '/v1/users', { headers: admin.headers(), body: { email: 'not an email' } })).status, 400);

    const token = created.body.invitation.url.split('/').pop();
    await server.services.accounts.invitations.accept(token, { name: 'Dana Scully', password: 'a-fresh-and-long-password' }, server.clock.now);
    const accepted = await server.request('GET', `/v1/users/${created.body.id}`, { headers: admin.headers() });
    t.match(accepted.body, { status: 'active', name: 'Dana Scully' });
    t.equal((await signIn(server, 'dana@example.test', 'a-fresh-and-long-password')).token.length, 43, 'the new user signs in');
  });

  await t.test('GET /v1/users lists the organization, in pages; another organization is 404', async (t) => {
    const page = await server.request('GET', '/v1/users?per_page=2', { headers: owner.headers() });
    t.equal(page.status, 200);
    t.equal(page.body.data.length, 2);
    t.equal(page.body.pagination.total, userCount());
    t.match(page.headers.get('link'), /rel="next"/);
    const other = createTenant(server.services, server.clock.now);
    const stranger = await signedInAs(server, other.orgId, 'owner');
    t.notOk(page.body.data.some((user: { id: string }) => user.id === stranger.userId));
    for (const [method, body] of [['GET', undefined], ['PATCH', { role: 'viewer' }], ['DELETE', undefined]] as const) {
      const response = await server.request(method, `/v1/users/${stranger.userId}`, { headers: owner.headers(), ...(body && { body }) });
      t.equal(response.status, 404, `${method} another organization's user`);
    }
    t.equal((await server.request('GET', '/v1/users/usr_nonsense', { headers: owner.headers() })).status, 404);
    t.equal(roleOf(stranger.userId), 'owner');
  });

  await t.test('a role change renews the user’s session id at its next request', async (t) => {
    const target = await signedInAs(server, tenant.orgId, 'member');
    const changed = await server.request('PATCH', `/v1/users/${target.userId}`, { headers: admin.headers(), body: { role: 'viewer' } });
    t.equal(changed.status, 200);
    t.equal(changed.body.role, 'viewer');
    const next = await server.request('GET', '/v1/user', { headers: target.headers() });
    t.equal(next.body.role, 'viewer');
    t.match(next.headers.get('set-cookie'), /^dbmon_session=[0-9A-Za-z]{43};/);
    t.equal((await server.request('GET', '/v1/user', { headers: target.headers() })).status, 401, 'the old id is gone');
  });

  await t.test('disabling ends the sessions and revokes the tokens; enabling gives the account back; DELETE removes it', async (t) => {
    const target = await signedInAs(server, tenant.orgId, 'member');
    const token = server.services.apiKeys.create(tenant.orgId, { kind: 'personal', userId: target.userId }, { name: 'pat', permission: 'write' }, server.clock.now);
    t.equal((await server.request('GET', '/v1/databases', { key: token.value })).status, 200);
    const disabled = await server.request('PATCH', `/v1/users/${target.userId}`, { headers: admin.headers(), body: { status: 'disabled' } });
    t.equal(disabled.status, 200);
    t.equal(disabled.body.status, 'disabled');
    t.equal((await server.request('GET', '/v1/user', { headers: target.headers() })).status, 401, 'the session ended');
    t.equal((await server.request('GET', '/v1/databases', { key: token.value })).status, 401, 'the token is revoked');
    await t.rejects(signIn(server, target.email), 'a disabled user cannot sign in');

    const enabled = await server.request('PATCH', `/v1/users/${target.userId}`, { headers: admin.headers(), body: { status: 'active' } });
    t.equal(enabled.body.status, 'active');
    t.equal((await signIn(server, target.email, testPassword)).token.length, 43);
    t.equal((await server.request('GET', '/v1/databases', { key: token.value })).status, 401, 'revoked tokens stay revoked');

    const removed = await server.request('DELETE', `/v1/users/${target.userId}`, { headers: admin.headers() });
    t.equal(removed.status, 204);
    t.equal((await server.request('GET', `/v1/users/${target.userId}`, { headers: admin.headers() })).status, 404);
    t.equal(server.db.prepare('SELECT count(*) FROM sessions WHERE user_id = ?').pluck().get(target.userId), 0);
  });

  await t.test('disabling an invitee cancels its link; re-enabled it is invited again and gets a new link', async (t) => {
    const created = await server.request('POST', '/v1/users', { headers: owner.headers(), body: { email: 'later@example.test', role: 'viewer' } });
    await server.request('PATCH', `/v1/users/${created.body.id}`, { headers: owner.headers(), body: { status: 'disabled' } });
    const oldToken = created.body.invitation.url.split('/').pop();
    const accept = (token: string) => server.services.accounts.invitations.accept(token, { name: 'Late', password: 'a-fresh-and-long-password' }, server.clock.now);
    await t.rejects(accept(oldToken), linkRefused, 'a disabled invitee cannot accept');
    const enabled = await server.request('PATCH', `/v1/users/${created.body.id}`, { headers: owner.headers(), body: { status: 'active' } });
    t.equal(enabled.body.status, 'invited', 'it never set a password');
    await t.rejects(accept(oldToken), linkRefused, 'the cancelled link stays cancelled');
    const renewed = await server.request('POST', `/v1/users/${created.body.id}/invitation`, { headers: owner.headers() });
    t.equal(renewed.status, 200, renewed.text);
    t.match(renewed.body, { url: new RegExp(`^${publicUrl}/invitations/[0-9A-Za-z]{43}$`), email_sent: false });
    t.equal((await accept(renewed.body.url.split('/').pop())).status, 'active');
    const again = await server.request('POST', `/v1/users/${created.body.id}/invitation`, { headers: owner.headers() });
    t.equal(again.status, 409, 'an active user needs no invitation');
    t.equal(again.body.error.code, 'not_invited');
    t.equal((await server.request('POST', `/v1/users/${created.body.id}/invitation`, { headers: member.headers() })).status, 403);
    t.equal((await server.request('POST', '/v1/users/usr_nonsense/invitation', { headers: owner.headers() })).status, 404);
  });
});
