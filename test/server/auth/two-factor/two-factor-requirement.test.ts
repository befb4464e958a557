import t from 'tap';
import { operatorOrigin } from '../../../../server/auth/audit/audit-origin.js';
import type { OrganizationSettingsChange } from '../../../../server/auth/organizations/organization-schema.js';
import { createPasswordUser, signIn } from '../../../helpers/sign-in.js';
import { createTenant, createUserKey, startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { totpCode } from '../../../helpers/two-factor.js';

const day = 86_400_000;
const advance = (server: TestServer, ms: number) => {
  server.clock.now = new Date(server.clock.now.getTime() + ms);
};

t.test("an organization's two-factor requirement, with its grace period", async (t) => {
  const server = await startTestServer({ now: new Date('2026-03-02T10:00:10Z') });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now);
  const owner = await createPasswordUser(server.services, tenant.orgId, 'owner', server.clock.now);
  const operatorChange = (change: OrganizationSettingsChange) =>
    server.services.accounts.organizationSettings.update(operatorOrigin(tenant.orgId), change, server.clock.now);
  const member = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
  const memberToken = createUserKey(server.services, tenant.orgId, server.clock.now, 'member', 'write', ['databases', 'api_keys']);
  // Sessions idle out after 30 minutes and the test moves days at a time: each check signs in afresh.
  const databasesAs = async (email: string) => server.request('GET', '/v1/databases', { headers: (await signIn(server, email)).headers() });
  const databasesWithToken = () => server.request('GET', '/v1/databases', { key: memberToken.key });

  await t.test('turned on with 7 days: members go on during the grace period', async (t) => {
    const ownerSession = await signIn(server, owner.email);
    const turnedOn = await server.request('PATCH', '/v1/org/settings', { headers: ownerSession.headers(), body: { require_two_factor: true, two_factor_grace_period_days: 7 } });
    t.equal(turnedOn.status, 200, turnedOn.text);
    advance(server, 6 * day);
    t.equal((await databasesAs(member.email)).status, 200, 'a session, on day 6');
    t.equal((await databasesWithToken()).status, 200, 'a personal token, on day 6');
  });

  await t.test('attack: shortening the grace period applies at once; past it the API answers 403 two_factor_required', async (t) => {
    operatorChange({ two_factor_grace_period_days: 3 });
    for (const [label, response] of [
      ['session', await databasesAs(member.email)],
      ['personal token', await databasesWithToken()],
    ] as const) {
      t.equal(response.status, 403, label);
      t.equal(response.body.error.type, 'permission_error', label);
      t.equal(response.body.error.code, 'two_factor_required', label);
    }
    t.equal((await server.request('GET', '/v1/databases', { key: tenant.key })).status, 200, 'a service account has no second factor to set up');
  });

  await t.test('a member past the deadline may still read who they are and enroll, and then goes on', async (t) => {
    const session = await signIn(server, member.email);
    t.equal((await server.request('GET', '/v1/user', { headers: session.headers() })).status, 200, 'GET /v1/user answers (it carries the CSRF token enrollment needs)');
    const renamed = await server.request('PATCH', '/v1/user', { headers: session.headers(), body: { name: 'x' } });
    t.equal(renamed.body.error?.code, 'two_factor_required', 'nothing else does');
    const started = await server.request('POST', '/v1/user/two-factor/totp', { headers: session.headers() });
    t.equal(started.status, 200, started.text);
    const verified = await server.request('POST', '/v1/user/two-factor/totp/verify', { headers: session.headers(), body: { code: totpCode(started.body.secret, server.clock.now) } });
    t.equal(verified.status, 200, verified.text);
    t.equal((await server.request('GET', '/v1/databases', { headers: session.headers() })).status, 200, 'enrolled, the API answers again');
  });

  await t.test('a member who joins later gets their own grace period; turning the requirement off lifts it at once', async (t) => {
    const late = await createPasswordUser(server.services, tenant.orgId, 'viewer', server.clock.now);
    advance(server, 2 * day);
    t.equal((await databasesAs(late.email)).status, 200, 'day 2 of their 3');
    advance(server, day);
    t.equal((await databasesAs(late.email)).status, 403, 'day 3');
    t.equal((await databasesAs(owner.email)).status, 403, 'the owner is held to it too');
    operatorChange({ require_two_factor: false });
    t.equal((await databasesAs(late.email)).status, 200, 'off: no requirement');
    operatorChange({ require_two_factor: true });
    t.equal((await databasesAs(late.email)).status, 200, 'on again: the grace period starts again from now');
  });

  await t.test('past the deadline, signing out through the API still answers', async (t) => {
    operatorChange({ two_factor_grace_period_days: 0 });
    const newcomer = await createPasswordUser(server.services, tenant.orgId, 'viewer', server.clock.now);
    const session = await signIn(server, newcomer.email);
    t.equal((await server.request('GET', '/v1/sessions', { headers: session.headers() })).body.error?.code, 'two_factor_required');
    const signedOut = await server.request('DELETE', `/v1/sessions/${session.sessionId}`, { headers: session.headers() });
    t.equal(signedOut.status, 204, signedOut.text);
    t.equal((await server.request('GET', '/v1/user', { headers: session.headers() })).status, 401, 'the session ended');
  });

  await t.test('an owner past the deadline is held to it too, but never locked out: they enroll, then may turn the requirement off', async (t) => {
    const session = await signIn(server, owner.email);
    const turnOff = () => server.request('PATCH', '/v1/org/settings', { headers: session.headers(), body: { require_two_factor: false } });
    const refused = await turnOff();
    t.equal(refused.status, 403);
    t.equal(refused.body.error.code, 'two_factor_required', 'not without a second factor of their own');
    const started = await server.request('POST', '/v1/user/two-factor/totp', { headers: session.headers() });
    t.equal(started.status, 200, started.text);
    const verified = await server.request('POST', '/v1/user/two-factor/totp/verify', { headers: session.headers(), body: { code: totpCode(started.body.secret, server.clock.now) } });
    t.equal(verified.status, 200, verified.text);
    const turnedOff = await turnOff();
    t.equal(turnedOff.status, 200, turnedOff.text);
    t.equal(turnedOff.body.require_two_factor, false);
  });
});
