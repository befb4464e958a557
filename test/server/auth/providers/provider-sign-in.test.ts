import t from 'tap';
import { providerKinds, type ProviderKind } from '../../../../server/auth/providers/provider-kinds.js';
import { providerStartsPerAddress } from '../../../../server/auth/providers/create-providers.js';
import { startFakeIdentityProviders, type FakeAccount, type FakeApproval } from '../../../helpers/fake-identity-providers.js';
import { PageClient, type PageResponse } from '../../../helpers/page-client.js';
import { createPasswordUser, signIn } from '../../../helpers/sign-in.js';
import { createTenant, createUserKey, startTestServer } from '../../../helpers/test-server.js';
import { enrollTotp, totpCode } from '../../../helpers/two-factor.js';

const fake = await startFakeIdentityProviders();
t.teardown(fake.close);
// Behind a trusted proxy (this test), so one test can come from other addresses.
const server = await startTestServer({ providerEndpoints: fake.endpoints, trustedProxies: ['127.0.0.1'] });
t.teardown(server.close);
const tenant = createTenant(server.services, server.clock.now, 'enterprise', 'Acme Social');
const admin = createUserKey(server.services, tenant.orgId, server.clock.now, 'admin', 'write', ['databases', 'api_keys']);
const settings: Record<ProviderKind, Record<string, string>> = {
  github: {},
  google: {},
  gitlab: { base_url: fake.gitlabUrl },
  microsoft: { tenant: 'tenant-1' },
};
for (const provider of providerKinds) {
  fake.clients.set(`${provider}-client`, `${provider}-secret`);
  const body = { client_id: `${provider}-client`, client_secret: `${provider}-secret`, enabled: true, ...settings[provider] };
  const saved = await server.request('PUT', `/v1/org/identity-providers/${provider}`, { key: admin.key, body });
  if (saved.status !== 200) throw new Error(saved.text);
}
let subjects = 1000;

interface Attempt {
  approval?: FakeApproval;
  /** Changes the provider's redirect back before the browser follows it. */
  tamper?: (callback: URL) => void;
  /** The browser that follows the redirect back (default: the one that started). */
  returningBrowser?: PageClient;
}

/** A browser starts at /auth/{provider}, the account approves at the fake, and the browser follows the redirect back. */
async function signInThrough(provider: ProviderKind, account: FakeAccount, attempt: Attempt = {}): Promise<{ browser: PageClient; back: PageResponse }> {
  const browser = new PageClient(server.url);
  const start = await browser.get(`/orgs/acme-social/auth/${provider}`);
  if (start.status !== 303) throw new Error(`start: ${start.status} ${start.text}`);
  const callback = new URL(fake.approve(start.location!, account, attempt.approval));
  attempt.tamper?.(callback);
  if (callback.origin !== 'http://localhost') throw new Error(`the provider sent the browser to ${callback.origin}, not the registered callback address`);
  const back = await (attempt.returningBrowser ?? browser).get(`${callback.pathname}${callback.search}`);
  return { browser, back };
}

function accountFor(email: string, emailVerified = true): FakeAccount {
  return { subject: String(subjects++), email, emailVerified };
}

const identitiesOf = (userId: string) => server.db.prepare('SELECT * FROM user_identities WHERE user_id = ?').all(userId) as { id: string; provider: string }[];

t.test('the sign-in page offers the providers the organization enabled, at /login?org= and {org_url}/login', async (t) => {
  const browser = new PageClient(server.url);
  const page = await browser.get('/login?org=acme-social');
  for (const name of ['GitHub', 'Google', 'Microsoft', 'GitLab']) t.match(page.text, `Sign in with ${name}`);
  t.match(page.text, 'href="/orgs/acme-social/auth/github"');
  t.notMatch((await browser.get('/login')).text, 'Sign in with', 'no organization named, no buttons');
  const orgLogin = await browser.get('/orgs/acme-social/login');
  t.equal(orgLogin.status, 303);
  t.equal(orgLogin.location, '/login?org=acme-social');
  await server.request('PUT', '/v1/org/identity-providers/gitlab', { key: admin.key, body: { client_id: 'gitlab-client', enabled: false } });
  t.notMatch((await browser.get('/login?org=acme-social')).text, 'Sign in with GitLab', 'a disabled provider is not offered');
  t.equal((await browser.get('/orgs/acme-social/auth/gitlab')).status, 404, 'nor started');
  await server.request('PUT', '/v1/org/identity-providers/gitlab', { key: admin.key, body: { client_id: 'gitlab-client', enabled: true } });
});

t.test('the provider sends the browser back to {auth_url}/auth/{provider}/callback?org={slug}, the only callback address', async (t) => {
  for (const provider of providerKinds) {
    const start = await new PageClient(server.url).get(`/orgs/acme-social/auth/${provider}`);
    t.equal(new URL(start.location!).searchParams.get('redirect_uri'), `http://localhost/auth/${provider}/callback?org=acme-social`, provider);
  }
  const browser = new PageClient(server.url);
  t.equal((await browser.get('/orgs/acme-social/auth/github/callback?code=x&state=y')).status, 404, 'no callback under {org_url}');
  t.equal((await browser.get('/auth/github/callback?code=x&state=y')).status, 400, 'no organization named: not started here');
});

t.test('each provider signs an existing account in by its verified email, links the identity, and finds it by that identity afterwards', async (t) => {
  for (const provider of providerKinds) {
    const { userId, email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const account = accountFor(email.toUpperCase());
    const { browser, back } = await signInThrough(provider, account);
    t.equal(back.status, 303, `${provider}: signed in`);
    t.equal(back.location, '/');
    t.ok(browser.cookies.has('dbmon_session'), 'with a session');
    t.notOk(browser.cookies.has('dbmon_provider_sign_in'), 'the sign-in is spent');
    const me = await server.request('GET', '/v1/user', { headers: { cookie: `dbmon_session=${browser.cookies.get('dbmon_session')}` } });
    t.equal(me.body.id, userId);
    const linked = identitiesOf(userId);
    t.equal(linked.length, 1);
    t.match(linked[0]!.id, /^idn_[0-9A-Za-z]{22}$/);
    // The email at the provider changes: the identity, not the email, names the account now.
    const again = await signInThrough(provider, { ...account, email: 'someone-else@example.test', emailVerified: false });
    t.equal(again.back.status, 303, `${provider}: signed in again through the linked identity`);
    t.equal(identitiesOf(userId).length, 1, 'no second identity');
  }
  const audit = await server.request('GET', '/v1/audit-log?action=identity.linked', { key: admin.key });
  t.equal(audit.body.data.length, 4);
  t.equal(fake.discoveries, 2, 'one OpenID discovery for Google and one for Microsoft, whatever the number of sign-ins');
});

t.test('an unverified email is never linked to the account that has it', async (t) => {
  for (const provider of providerKinds) {
    const { userId, email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const { browser, back } = await signInThrough(provider, accountFor(email, false));
    t.equal(back.status, 403, `${provider}: refused`);
    t.match(back.text, 'has not verified the email address');
    t.notOk(browser.cookies.has('dbmon_session'), 'no session');
    t.same(identitiesOf(userId), [], 'nothing linked');
  }
  const failed = await server.request('GET', '/v1/audit-log?action=sign_in.failed', { key: admin.key });
  t.equal(failed.body.data.filter((entry: { details: { reason?: string } }) => entry.details.reason === 'email_not_verified').length, 4, 'each attempt is audited');
});

t.test('Microsoft: xms_edov vouches for the email as email_verified does; without it nothing is linked', async (t) => {
  for (const entraDomainVerified of [true, false]) {
    const { userId, email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const { back } = await signInThrough('microsoft', { ...accountFor(email, false), entraDomainVerified });
    t.equal(back.status, entraDomainVerified ? 303 : 403, `xms_edov ${entraDomainVerified}`);
    t.equal(identitiesOf(userId).length, entraDomainVerified ? 1 : 0);
  }
});

t.test('a verified email that names no account of the organization signs nobody in and creates nobody', async (t) => {
  const other = createTenant(server.services, server.clock.now, 'enterprise', 'Other Org');
  const stranger = await createPasswordUser(server.services, other.orgId, 'owner', server.clock.now);
  for (const email of ['nobody@example.test', stranger.email]) {
    const { back } = await signInThrough('github', accountFor(email));
    t.equal(back.status, 403);
    t.match(back.text, 'No account of this organization');
  }
  t.same(identitiesOf(stranger.userId), [], 'an account of another organization is not linked');
});

t.test('state: a changed state, or a callback in a browser that did not start the sign-in, is refused before any code is redeemed', async (t) => {
  for (const provider of providerKinds) {
    const { userId, email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const before = fake.tokenRequests.length;
    const changed = await signInThrough(provider, accountFor(email), { tamper: (callback) => callback.searchParams.set('state', 'forged-state') });
    t.equal(changed.back.status, 403, `${provider}: a changed state is refused`);
    t.notOk(changed.browser.cookies.has('dbmon_session'));
    // Login CSRF: the attacker's own code and state, followed in the victim's browser.
    const victim = new PageClient(server.url);
    const planted = await signInThrough(provider, accountFor(email), { returningBrowser: victim });
    t.equal(planted.back.status, 400, `${provider}: a browser that did not start the sign-in is refused`);
    t.notOk(victim.cookies.has('dbmon_session'));
    t.equal(fake.tokenRequests.length, before, 'no code was redeemed');
    t.same(identitiesOf(userId), [], 'nothing linked');
  }
});

t.test('nonce: an ID token made for another sign-in, or for none, is refused (Google, Microsoft)', async (t) => {
  for (const provider of ['google', 'microsoft'] as const) {
    for (const nonce of ['nonce-of-another-sign-in', null]) {
      const { userId, email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
      const { browser, back } = await signInThrough(provider, accountFor(email), { approval: { nonce } });
      t.equal(back.status, 403, `${provider}, nonce ${nonce}: refused`);
      t.match(back.text, 'did not confirm the sign-in');
      t.notOk(browser.cookies.has('dbmon_session'));
      t.same(identitiesOf(userId), []);
    }
  }
});

t.test('a user with a second factor still gives it after the provider', async (t) => {
  const { userId, email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
  const { secret } = await enrollTotp(server, await signIn(server, email));
  const { browser, back } = await signInThrough('google', accountFor(email));
  t.equal(back.status, 303);
  t.equal(back.location, '/login/two-factor');
  t.notOk(browser.cookies.has('dbmon_session'), 'no session before the second factor');
  t.ok(browser.cookies.has('dbmon_pending_sign_in'));
  server.clock.now = new Date(server.clock.now.getTime() + 30_000); // the code enrollment used is spent
  const pendingToken = browser.cookies.get('dbmon_pending_sign_in')!;
  await server.services.accounts.secondFactorSignIn.finish({ pendingToken, kind: 'totp', code: totpCode(secret, server.clock.now), ip: '127.0.0.1', userAgent: 'test' }, server.clock.now);
  const audited = server.db.prepare("SELECT details FROM audit_log WHERE action = 'sign_in.succeeded' AND target_id = ? ORDER BY seq DESC LIMIT 1").pluck().get(userId) as string;
  t.same(JSON.parse(audited), { factors: ['google', 'totp'] }, 'the audit names the factors that were given: no password');
});

t.test('users list and unlink their identities, but never their last way to sign in', async (t) => {
  const { userId, email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
  const account = accountFor(email);
  await signInThrough('github', account);
  await signInThrough('gitlab', accountFor(email));
  const session = await signIn(server, email);
  const listed = await server.request('GET', '/v1/user/identities', { headers: session.headers() });
  t.equal(listed.status, 200);
  t.same(listed.body.data.map((identity: { provider: string }) => identity.provider).sort(), ['github', 'gitlab']);
  const [github, gitlab] = [...listed.body.data].sort((a: { provider: string }, b: { provider: string }) => a.provider.localeCompare(b.provider)) as { id: string }[];

  const outsider = await signIn(server, (await createPasswordUser(server.services, tenant.orgId, 'admin', server.clock.now)).email);
  t.equal((await server.request('DELETE', `/v1/user/identities/${github!.id}`, { headers: outsider.headers() })).status, 404, "another user's identity is not found");

  const page = new PageClient(server.url);
  page.cookies.set('dbmon_session', session.token);
  t.equal((await page.postForm(`/account/identities/${github!.id}/unlink`, {})).status, 403, 'the page unlinks nothing without the session\'s CSRF token');
  t.equal(identitiesOf(userId).length, 2);

  // An account that has no password (made by single sign-on) keeps its last identity.
  server.db.prepare('UPDATE users SET password_hash = NULL WHERE id = ?').run(userId);
  t.equal((await server.request('DELETE', `/v1/user/identities/${github!.id}`, { headers: session.headers() })).status, 204);
  const last = await server.request('DELETE', `/v1/user/identities/${gitlab!.id}`, { headers: session.headers() });
  t.equal(last.status, 409);
  t.equal(last.body.error.code, 'last_sign_in_method');
  t.equal(identitiesOf(userId).length, 1);
  const unlinked = await signInThrough('github', account);
  t.equal(unlinked.back.status, 303, 'an unlinked identity links again by its verified email');
  t.equal((await server.request('GET', '/v1/audit-log?action=identity.unlinked', { key: admin.key })).body.data.length, 1);
});

t.test('one client address starts a limited number of sign-ins, so it cannot push out everyone else\'s', async (t) => {
  const flooder = new PageClient(server.url);
  const from = { 'x-forwarded-for': '203.0.113.9' };
  for (let started = 0; started < providerStartsPerAddress; started++) {
    const start = await flooder.get('/orgs/acme-social/auth/github', from);
    if (start.status !== 303) throw new Error(`start ${started}: ${start.status}`);
  }
  const refused = await flooder.get('/orgs/acme-social/auth/github', from);
  t.equal(refused.status, 429);
  t.equal(refused.headers.get('x-ratelimit-remaining'), '0');
  t.match(refused.text, 'Too many sign-ins were started from your network');
  t.equal((await flooder.get('/orgs/acme-social/auth/github', { 'x-forwarded-for': '203.0.113.10' })).status, 303, 'another address still starts');
});
