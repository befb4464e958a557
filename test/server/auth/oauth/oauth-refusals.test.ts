import t from 'tap';
import { operatorOrigin } from '../../../../server/auth/audit/audit-origin.js';
import { oauthScopes } from '../../../../server/auth/oauth/oauth-scopes.js';
import { hashToken } from '../../../../server/crypto/checksummed-token.js';
import { PageClient } from '../../../helpers/page-client.js';
import { basicAuth, newPkce, OAuthBrowser, postForm, registerApplication, wrongSecretOf, type RegisteredApplication } from '../../../helpers/oauth-flow.js';
import { createTenant, createUserKey, startTestServer } from '../../../helpers/test-server.js';

const server = await startTestServer();
t.teardown(server.close);
const tenant = createTenant(server.services, server.clock.now, 'enterprise', 'Acme Operations');
const admin = createUserKey(server.services, tenant.orgId, server.clock.now, 'admin', 'write', ['databases', 'api_keys']);
const redirectUri = 'http://127.0.0.1:9/callback';
const confidential = await registerApplication(server, admin.key, { name: 'Reporter', redirect_uris: [redirectUri], scopes: ['databases', 'metrics', 'alerts'] });
const other = await registerApplication(server, admin.key, { name: 'Other app', redirect_uris: [redirectUri] });
const publicApp = await registerApplication(server, admin.key, { name: 'CLI', redirect_uris: ['http://127.0.0.1:9/cli'], confidential: false });
const browser = await OAuthBrowser.signIn(server, tenant.orgId);

function requestFor(app: RegisteredApplication, extra: Record<string, string> = {}): Record<string, string> {
  return { response_type: 'code', client_id: app.client_id, redirect_uri: app.redirect_uris[0]!, state: 'st-1', ...extra };
}

function exchange(app: RegisteredApplication, code: string, extra: Record<string, string> = {}) {
  return postForm(server, '/v1/oauth/token', {
    grant_type: 'authorization_code',
    code,
    redirect_uri: app.redirect_uris[0]!,
    client_id: app.client_id,
    ...(app.client_secret !== undefined && { client_secret: app.client_secret }),
    ...extra,
  });
}

async function tokensFor(app: RegisteredApplication, scope?: string) {
  const pkce = newPkce();
  const code = await browser.code(requestFor(app, { code_challenge: pkce.challenge, code_challenge_method: 'S256', ...(scope && { scope }) }));
  const answer = await exchange(app, code, { code_verifier: pkce.verifier });
  if (answer.status !== 200) throw new Error(answer.text);
  return answer.body as { access_token: string; refresh_token: string; scope: string };
}

function refresh(app: RegisteredApplication, refreshToken: string, extra: Record<string, string> = {}) {
  return postForm(server, '/v1/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: app.client_id, client_secret: app.client_secret!, ...extra });
}

t.test('registration: exact redirect URIs, https or loopback http, the secret hashed at rest', async (t) => {
  for (const uri of ['http://example.com/cb', 'https://example.com/a/../cb', 'https://EXAMPLE.com/cb', 'https://example.com/cb#x', 'https://user:pw@example.com/cb', 'not a url']) {
    const answer = await server.request('POST', '/v1/oauth/applications', { key: admin.key, body: { name: 'x', redirect_uris: [uri] } });
    t.equal(answer.status, 400, `refused: ${uri}`);
  }
  t.match(confidential.client_secret, /^dbm_ocs_[0-9A-Za-z]{38}$/);
  t.notOk('client_secret' in publicApp, 'a public client gets no secret');
  const stored = server.db.prepare('SELECT client_secret_hash FROM oauth_applications WHERE id = ?').pluck().get(confidential.id) as Buffer;
  t.same(stored, hashToken(confidential.client_secret!), 'only the hash is stored');
  const listed = await server.request('GET', '/v1/oauth/applications', { key: admin.key });
  t.notOk(listed.text.includes(confidential.client_secret!), 'never shown again');
  const member = createUserKey(server.services, tenant.orgId, server.clock.now, 'member', 'write', ['databases', 'api_keys']);
  const refused = await server.request('POST', '/v1/oauth/applications', { key: member.key, body: { name: 'x', redirect_uris: [redirectUri] } });
  t.equal(refused.status, 403, 'members register nothing');
  const agent = await server.request('POST', '/v1/oauth/applications', { key: admin.key, body: { name: 'x', redirect_uris: [redirectUri], scopes: ['agent'] } });
  t.equal(agent.status, 400, 'agent is no scope an application gets');
});

t.test('authorize: an unknown client or a redirect URI that is not an exact match gets an error page, never a redirect', async (t) => {
  const registered = 'http://127.0.0.1:9/callback';
  const attempts: Record<string, string>[] = [
    { client_id: 'nope', redirect_uri: registered },
    { client_id: confidential.client_id, redirect_uri: `${registered}/evil` },
    { client_id: confidential.client_id, redirect_uri: `${registered}x` },
    { client_id: confidential.client_id, redirect_uri: 'http://127.0.0.1:9/callback/../evil' },
    { client_id: confidential.client_id, redirect_uri: 'http://127.0.0.1:9/%2e%2e/callback' },
    { client_id: confidential.client_id, redirect_uri: 'http://127.0.0.1:9/callback?x=1' },
    { client_id: confidential.client_id, redirect_uri: 'http://127.0.0.1:90/callback' },
    { client_id: confidential.client_id },
  ];
  for (const attempt of attempts) {
    const page = await browser.client.get(browser.authorizeUrl({ response_type: 'code', state: 's', ...attempt }));
    t.equal(page.status, 400, `error page for ${JSON.stringify(attempt)}`);
    t.equal(page.location, null, 'no redirect');
    t.match(page.headers.get('content-type'), /text\/html/);
  }
});

t.test('authorize: faults after the redirect URI is trusted go back to it with state and iss', async (t) => {
  const cases: [Record<string, string>, string][] = [
    [{ code_challenge: newPkce().challenge, code_challenge_method: 'plain' }, 'invalid_request'],
    [{ code_challenge: newPkce().challenge }, 'invalid_request'],
    [{ code_challenge: 'short', code_challenge_method: 'S256' }, 'invalid_request'],
    [{ response_type: 'token' }, 'unsupported_response_type'],
    [{ scope: 'databases webhooks' }, 'invalid_scope'],
    [{ scope: 'agent' }, 'invalid_scope'],
  ];
  for (const [extra, error] of cases) {
    const page = await browser.client.get(browser.authorizeUrl(requestFor(confidential, extra)));
    t.equal(page.status, 303, JSON.stringify(extra));
    const location = new URL(page.location!);
    t.equal(`${location.origin}${location.pathname}`, redirectUri);
    t.equal(location.searchParams.get('error'), error, `${JSON.stringify(extra)} is ${error}`);
    t.equal(location.searchParams.get('state'), 'st-1');
    t.equal(location.searchParams.get('iss'), 'http://localhost');
  }
  const noPkce = await browser.client.get(browser.authorizeUrl(requestFor(publicApp)));
  t.equal(new URL(noPkce.location!).searchParams.get('error'), 'invalid_request', 'a public client must use PKCE');
});

t.test('consent: remembered per user, application and scope set; declining tells the client access_denied', async (t) => {
  const fresh = await OAuthBrowser.signIn(server, tenant.orgId, 'viewer');
  const pkce = newPkce();
  const ask = requestFor(confidential, { scope: 'databases', code_challenge: pkce.challenge, code_challenge_method: 'S256' });
  const first = await fresh.client.get(fresh.authorizeUrl(ask));
  t.equal(first.status, 200, 'the consent page');
  t.match(first.text, 'Reporter');
  t.match(first.text, 'Acme Operations');
  t.match(first.text, 'Monitored databases');
  t.match(first.headers.get('content-security-policy'), "form-action 'self' http://127.0.0.1:9;", 'the form may lead to the client');
  const denied = await fresh.authorize(ask, 'deny');
  t.equal(new URL(denied.location!).searchParams.get('error'), 'access_denied');
  const noCsrf = await fresh.client.postForm('/oauth/authorize', { ...ask, decision: 'approve' });
  t.equal(noCsrf.status, 403, 'a consent without the session token decides nothing');
  t.equal(noCsrf.location, null);
  t.ok((await fresh.authorize(ask)).location?.includes('code='));
  const again = await fresh.client.get(fresh.authorizeUrl(ask));
  t.equal(again.status, 303, 'consent given is not asked again');
  t.match(again.location, /[?&]code=/);
  const more = await fresh.client.get(fresh.authorizeUrl({ ...ask, scope: 'databases metrics' }));
  t.equal(more.status, 200, 'a wider scope set asks again');
});

t.test('a signed-out user goes through /login and comes back', async (t) => {
  const anonymous = new PageClient(server.url);
  const page = await anonymous.get(browser.authorizeUrl(requestFor(confidential)));
  t.equal(page.status, 303);
  const login = new URL(page.location!, server.url);
  t.equal(login.pathname, '/login');
  t.match(login.searchParams.get('next'), /^\/oauth\/authorize\?/);
});

t.test('code: single use, and a replay revokes what it issued', async (t) => {
  const pkce = newPkce();
  const code = await browser.code(requestFor(confidential, { code_challenge: pkce.challenge, code_challenge_method: 'S256' }));
  const first = await exchange(confidential, code, { code_verifier: pkce.verifier });
  t.equal(first.status, 200);
  t.equal(first.headers.get('cache-control'), 'no-store');
  t.match(first.body, { token_type: 'Bearer', expires_in: 3600, scope: 'databases metrics alerts' });
  t.match(first.body.access_token, /^dbm_oat_/);
  t.match(first.body.refresh_token, /^dbm_ort_/);
  t.equal((await server.request('GET', '/v1/databases', { key: first.body.access_token })).status, 200);
  const replay = await exchange(confidential, code, { code_verifier: pkce.verifier });
  t.equal(replay.status, 400);
  t.equal(replay.body.error, 'invalid_grant');
  const after = await server.request('GET', '/v1/databases', { key: first.body.access_token });
  t.equal(after.status, 401, 'the tokens of a replayed code are revoked');
  t.equal(after.body.error.code, 'revoked_access_token');
  t.equal((await refresh(confidential, first.body.refresh_token)).body.error, 'invalid_grant', 'its refresh token too');
});

t.test('code: expired, another client, another redirect URI, PKCE downgrade and mismatch are invalid_grant', async (t) => {
  const pkce = newPkce();
  const withPkce = requestFor(confidential, { code_challenge: pkce.challenge, code_challenge_method: 'S256' });
  const cases: [string, () => Promise<{ status: number; body: { error: string } }>][] = [
    ['expired', async () => {
      const code = await browser.code(withPkce);
      server.clock.now = new Date(server.clock.now.getTime() + 61_000);
      return exchange(confidential, code, { code_verifier: pkce.verifier });
    }],
    ['another client', async () => exchange(other, await browser.code(withPkce), { code_verifier: pkce.verifier })],
    ['another redirect_uri', async () => exchange(confidential, await browser.code(withPkce), { code_verifier: pkce.verifier, redirect_uri: 'http://127.0.0.1:9/other' })],
    ['no verifier for a challenge', async () => exchange(confidential, await browser.code(withPkce))],
    ['a verifier without a challenge', async () => exchange(confidential, await browser.code(requestFor(confidential)), { code_verifier: pkce.verifier })],
    ['a wrong verifier', async () => exchange(confidential, await browser.code(withPkce), { code_verifier: newPkce().verifier })],
    ['a made-up code', async () => exchange(confidential, 'A'.repeat(43), { code_verifier: pkce.verifier })],
  ];
  for (const [name, attempt] of cases) {
    const answer = await attempt();
    t.equal(answer.status, 400, name);
    t.equal(answer.body.error, 'invalid_grant', name);
  }
});

t.test('client authentication: a wrong secret, a public client posing with a secret, and Basic', async (t) => {
  const code = await browser.code(requestFor(confidential));
  const wrong = await exchange(confidential, code, { client_secret: wrongSecretOf(confidential.client_secret!) });
  t.equal(wrong.status, 401);
  t.equal(wrong.body.error, 'invalid_client');
  const basicWrong = await postForm(server, '/v1/oauth/token', { grant_type: 'authorization_code', code, redirect_uri: redirectUri }, basicAuth(confidential.client_id, 'dbm_ocs_wrong'));
  t.equal(basicWrong.status, 401);
  t.match(basicWrong.headers.get('www-authenticate'), /^Basic/);
  const none = await postForm(server, '/v1/oauth/token', { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: confidential.client_id });
  t.equal(none.body.error, 'invalid_client', 'a confidential client must authenticate');
  const basic = await postForm(server, '/v1/oauth/token', { grant_type: 'authorization_code', code, redirect_uri: redirectUri }, basicAuth(confidential.client_id, confidential.client_secret!));
  t.equal(basic.status, 200, 'HTTP Basic works, after the failed attempts with the right code');
  const unsupported = await postForm(server, '/v1/oauth/token', { grant_type: 'password', client_id: confidential.client_id });
  t.equal(unsupported.body.error, 'unsupported_grant_type');
  const repeated = await server.request('POST', '/v1/oauth/token', {
    rawBody: `grant_type=authorization_code&code=${code}&code=${code}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.equal(repeated.body.error, 'invalid_request');
});

t.test('refresh: rotation, reuse revokes the family, no scope escalation, narrowing allowed', async (t) => {
  const tokens = await tokensFor(confidential, 'databases metrics');
  const rotated = await refresh(confidential, tokens.refresh_token);
  t.equal(rotated.status, 200);
  t.not(rotated.body.refresh_token, tokens.refresh_token, 'a new refresh token');
  const escalate = await refresh(confidential, rotated.body.refresh_token, { scope: 'databases alerts' });
  t.equal(escalate.body.error, 'invalid_scope', 'alerts were never granted to this family');
  const narrowed = await refresh(confidential, rotated.body.refresh_token, { scope: 'metrics' });
  t.equal(narrowed.status, 200);
  t.equal(narrowed.body.scope, 'metrics');
  t.equal((await server.request('GET', '/v1/databases', { key: narrowed.body.access_token })).status, 403, 'the narrowed token lacks databases');
  const byOther = await postForm(server, '/v1/oauth/token', { grant_type: 'refresh_token', refresh_token: narrowed.body.refresh_token, client_id: other.client_id, client_secret: other.client_secret! });
  t.equal(byOther.body.error, 'invalid_grant', "another client cannot use this client's refresh token");
  const reuse = await refresh(confidential, tokens.refresh_token);
  t.equal(reuse.body.error, 'invalid_grant', 'the first refresh token again');
  t.equal((await refresh(confidential, narrowed.body.refresh_token)).body.error, 'invalid_grant', 'the latest refresh token of the family is revoked');
  for (const access of [tokens.access_token, rotated.body.access_token, narrowed.body.access_token]) {
    t.equal((await server.request('GET', '/v1/alerts', { key: access })).status, 401, 'every access token of the family is revoked');
  }
});

t.test('access tokens: role ∩ scopes, revocation, a disabled user, the user bucket, withdrawn authorizations', async (t) => {
  const viewer = await OAuthBrowser.signIn(server, tenant.orgId, 'viewer');
  const pkce = newPkce();
  const code = await viewer.code(requestFor(confidential, { scope: 'databases', code_challenge: pkce.challenge, code_challenge_method: 'S256' }));
  const tokens = (await exchange(confidential, code, { code_verifier: pkce.verifier })).body;
  t.equal((await server.request('GET', '/v1/databases', { key: tokens.access_token })).status, 200);
  const write = await server.request('POST', '/v1/databases', { key: tokens.access_token, body: { name: 'x', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' } } });
  t.equal(write.status, 403, "a viewer's token cannot write");
  t.equal((await server.request('GET', '/v1/alerts', { key: tokens.access_token })).status, 403, 'outside the granted scopes');
  t.equal((await server.request('GET', '/v1/user', { key: tokens.access_token })).status, 403, 'account endpoints take sessions and personal tokens only');

  const pat = server.services.apiKeys.create(tenant.orgId, { kind: 'personal', userId: viewer.userId }, { name: 'pat', permission: 'read' }, server.clock.now).value;
  const before = Number((await server.request('GET', '/v1/databases', { key: pat })).headers.get('x-ratelimit-remaining'));
  const through = Number((await server.request('GET', '/v1/databases', { key: tokens.access_token })).headers.get('x-ratelimit-remaining'));
  t.equal(through, before - 1, "the token counts in the user's bucket, with their personal tokens");

  const listed = await server.request('GET', '/v1/user/authorizations', { key: pat });
  t.equal(listed.status, 403, 'a token without api_keys cannot list them');

  const revoked = await postForm(server, '/v1/oauth/revoke', { token: tokens.access_token }, basicAuth(confidential.client_id, confidential.client_secret!));
  t.equal(revoked.status, 200);
  t.equal((await server.request('GET', '/v1/databases', { key: tokens.access_token })).status, 401, 'a revoked token is refused');
  const unknown = await postForm(server, '/v1/oauth/revoke', { token: 'dbm_oat_unknown', client_id: confidential.client_id, client_secret: confidential.client_secret! });
  t.equal(unknown.status, 200, 'an unknown token is answered 200');

  const fresh = await tokensFor(confidential);
  t.equal((await server.request('GET', '/v1/databases', { key: fresh.access_token })).status, 200);
  server.db.prepare("UPDATE users SET status = 'disabled' WHERE id = ?").run(browser.userId);
  t.equal((await server.request('GET', '/v1/databases', { key: fresh.access_token })).status, 401, "a disabled user's token is refused");
  t.equal((await refresh(confidential, fresh.refresh_token)).body.error, 'invalid_grant', 'and cannot be refreshed');
  server.db.prepare("UPDATE users SET status = 'active' WHERE id = ?").run(browser.userId);

  const ownKey = server.services.apiKeys.create(tenant.orgId, { kind: 'personal', userId: browser.userId }, { name: 'mine', permission: 'write', scopes: ['api_keys'] }, server.clock.now).value;
  const again = await tokensFor(confidential);
  const mine = await server.request('GET', '/v1/user/authorizations', { key: ownKey });
  t.equal(mine.status, 200);
  const reporter = mine.body.data.find((entry: { application: { client_id: string } }) => entry.application.client_id === confidential.client_id);
  t.match(reporter, { application: { name: 'Reporter', organization: 'Acme Operations' } });
  t.equal((await server.request('DELETE', `/v1/user/authorizations/${reporter.id}`, { key: ownKey })).status, 204);
  t.equal((await server.request('GET', '/v1/databases', { key: again.access_token })).status, 401, 'withdrawn: its tokens end at once');
  t.equal((await server.request('DELETE', `/v1/user/authorizations/${reporter.id}`, { key: ownKey })).status, 404);
});

t.test('the IP allowlist applies to OAuth tokens', async (t) => {
  const tokens = await tokensFor(confidential);
  server.db.prepare("UPDATE organizations SET ip_allowlist = '[\"192.0.2.0/24\"]' WHERE id = ?").run(tenant.orgId);
  t.teardown(() => server.db.prepare("UPDATE organizations SET ip_allowlist = '[]' WHERE id = ?").run(tenant.orgId));
  const refused = await server.request('GET', '/v1/databases', { key: tokens.access_token });
  t.equal(refused.status, 403);
  t.equal(refused.body.error.code, 'ip_not_allowed');
});

t.test('metadata (RFC 8414)', async (t) => {
  const metadata = await server.request('GET', '/.well-known/oauth-authorization-server');
  t.match(metadata.body, {
    issuer: 'http://localhost',
    authorization_endpoint: 'http://localhost/oauth/authorize',
    token_endpoint: 'http://localhost/v1/oauth/token',
    code_challenge_methods_supported: ['S256'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
  });
});

t.test('deleting an application ends its tokens', async (t) => {
  const doomed = await registerApplication(server, admin.key, { name: 'Doomed', redirect_uris: [redirectUri] });
  const tokens = await tokensFor(doomed);
  t.equal((await server.request('DELETE', `/v1/oauth/applications/${doomed.id}`, { key: admin.key })).status, 204);
  t.equal((await server.request('GET', '/v1/databases', { key: tokens.access_token })).status, 401);
  const audit = server.db.prepare("SELECT action FROM audit_log WHERE action LIKE 'oauth_%' ORDER BY created_at").pluck().all();
  t.ok(audit.includes('oauth_application.created') && audit.includes('oauth_application.deleted') && audit.includes('oauth_authorization.granted'));
});

t.test('attack: a token of a member past their organization\'s two-factor deadline is refused 403 two_factor_required', async (t) => {
  const strict = createTenant(server.services, server.clock.now, 'pro', 'Strict Co');
  const member = await OAuthBrowser.signIn(server, strict.orgId);
  const pkce = newPkce();
  const code = await member.code(requestFor(confidential, { code_challenge: pkce.challenge, code_challenge_method: 'S256' }));
  const tokens = (await exchange(confidential, code, { code_verifier: pkce.verifier })).body;
  t.equal((await server.request('GET', '/v1/databases', { key: tokens.access_token })).status, 200, 'before the requirement');
  server.services.accounts.organizationSettings.update(operatorOrigin(strict.orgId), { require_two_factor: true, two_factor_grace_period_days: 0 }, server.clock.now);
  const refused = await server.request('GET', '/v1/databases', { key: tokens.access_token });
  t.equal(refused.status, 403);
  t.equal(refused.body.error.code, 'two_factor_required');
  const enroll = await server.request('POST', '/v1/user/two-factor/totp', { key: tokens.access_token });
  t.equal(enroll.status, 403, 'enrollment stays for the person, not an application');
  t.equal(enroll.body.error.code, 'credential_not_accepted');
});

t.test('attack: an OAuth token reaches none of the account-security endpoints, even with every scope', async (t) => {
  const everything = await registerApplication(server, admin.key, { name: 'Everything', redirect_uris: [redirectUri], scopes: [...oauthScopes] });
  const owner = await OAuthBrowser.signIn(server, tenant.orgId, 'owner');
  const pkce = newPkce();
  const code = await owner.code(requestFor(everything, { code_challenge: pkce.challenge, code_challenge_method: 'S256' }));
  const token = (await exchange(everything, code, { code_verifier: pkce.verifier })).body.access_token as string;
  t.equal((await server.request('GET', '/v1/api-keys', { key: token })).status, 200, 'the token itself works, with api_keys');
  const personOnly: [string, string, Record<string, unknown>?][] = [
    ['GET', '/v1/user'],
    ['PATCH', '/v1/user', { password: 'a-brand-new-passphrase-9', current_password: 'whatever-it-was' }],
    ['POST', '/v1/user/two-factor/totp'],
    ['POST', '/v1/user/two-factor/totp/verify', { code: '123456' }],
    ['POST', '/v1/user/two-factor/recovery-codes'],
    ['DELETE', '/v1/user/two-factor/totp', { password: 'whatever-it-was' }],
    ['GET', '/v1/sessions'],
    ['DELETE', '/v1/sessions/sess_00000000000000000000'],
    ['POST', '/v1/sessions/revoke-others'],
    ['GET', '/v1/user/authorizations'],
    ['DELETE', '/v1/user/authorizations/authz_00000000000000000000'],
    ['POST', '/v1/api-keys', { name: 'outlives the authorization', permission: 'write', scopes: ['databases'] }],
    ['POST', '/v1/users', { email: 'new@example.test', role: 'admin' }],
    ['PATCH', '/v1/org/settings', { require_two_factor: false }],
    ['POST', '/v1/oauth/applications', { name: 'x', redirect_uris: [redirectUri] }],
  ];
  for (const [method, path, body] of personOnly) {
    const answer = await server.request(method, path, { key: token, ...(body && { body }) });
    t.equal(answer.status, 403, `${method} ${path}`);
    t.equal(answer.body?.error?.code, 'credential_not_accepted', `${method} ${path}`);
  }
});

t.test('attack: disabling a user revokes their OAuth tokens for good, not only while disabled, and their pending codes', async (t) => {
  const owner = createUserKey(server.services, tenant.orgId, server.clock.now, 'owner', 'write', ['api_keys']);
  const user = await OAuthBrowser.signIn(server, tenant.orgId);
  const pkce = newPkce();
  const code = await user.code(requestFor(confidential, { code_challenge: pkce.challenge, code_challenge_method: 'S256' }));
  const tokens = (await exchange(confidential, code, { code_verifier: pkce.verifier })).body;
  const setStatus = (status: string) => server.request('PATCH', `/v1/users/${user.userId}`, { key: owner.key, body: { status } });
  const pending = newPkce();
  const pendingCode = await user.code(requestFor(confidential, { code_challenge: pending.challenge, code_challenge_method: 'S256' }));
  t.equal((await setStatus('disabled')).status, 200);
  t.equal((await server.request('GET', '/v1/databases', { key: tokens.access_token })).status, 401, 'refused while disabled');
  const exchanged = await exchange(confidential, pendingCode, { code_verifier: pending.verifier });
  t.equal(exchanged.body.error, 'invalid_grant', 'a code given before the disabling buys no tokens');
  t.equal((await setStatus('active')).status, 200);
  t.equal((await server.request('GET', '/v1/databases', { key: tokens.access_token })).status, 401, 'the access token stays revoked');
  t.equal((await refresh(confidential, tokens.refresh_token)).body.error, 'invalid_grant', 'so does the refresh token');
});

t.test('the authorization error page says what is wrong, not a stock "Bad request"', async (t) => {
  const cases: [Record<string, string>, string, string][] = [
    [{ client_id: 'nope', redirect_uri: redirectUri }, 'Unknown application', 'The application asking for access is not registered here'],
    [{ redirect_uri: redirectUri }, 'Unknown application', 'The request names no application (client_id)'],
    [{ client_id: confidential.client_id, redirect_uri: `${redirectUri}/evil` }, 'Redirect address not registered', 'The redirect address is not one registered for Reporter'],
    [{ client_id: confidential.client_id }, 'Redirect address not registered', 'The request names no redirect address (redirect_uri)'],
  ];
  for (const [attempt, heading, words] of cases) {
    const page = await browser.client.get(browser.authorizeUrl({ response_type: 'code', state: 's', ...attempt }));
    t.equal(page.status, 400);
    t.match(page.text, `<h1 id="error-title">${heading}</h1>`, JSON.stringify(attempt));
    t.match(page.text, words, JSON.stringify(attempt));
    t.notMatch(page.text, 'Bad request');
  }
  const twoStates = await browser.client.get(`${browser.authorizeUrl(requestFor(confidential))}&state=again`);
  t.equal(twoStates.status, 303, 'a repeated state, once the redirect address is trusted, goes back to the client');
  t.equal(new URL(twoStates.location!).searchParams.get('error'), 'invalid_request');
  t.equal(new URL(twoStates.location!).searchParams.get('state'), null, 'with no state to pick');
});
