import t from 'tap';
import { SamlExpiryJob } from '../../../../server/auth/saml/saml-expiry-job.js';
import { runPass } from '../../../../server/jobs/background-job.js';
import { formField, PageClient } from '../../../helpers/page-client.js';
import { enrollTotp, totpCode } from '../../../helpers/two-factor.js';
import { createTenant, startTestServer } from '../../../helpers/test-server.js';
import { createPasswordUser, signIn, testPassword } from '../../../helpers/sign-in.js';
import { encodeResponse, makeIdpKey, requestIdOf, responseXml, signAssertion, type AssertionFields } from '../../../helpers/saml-identity-provider.js';

const idpEntityId = 'https://idp.example.test/metadata';
const idpSsoUrl = 'http://127.0.0.1:9/sso';

t.test('SAML single sign-on for an organization', async (t) => {
  const server = await startTestServer();
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now, 'enterprise', `Saml Org ${Math.random().toString(36).slice(2)}`);
  const slug = server.services.accounts.organizationSettings.organization(tenant.orgId).slug;
  const owner = await createPasswordUser(server.services, tenant.orgId, 'owner', server.clock.now);
  const ownerSession = await signIn(server, owner.email);
  const [idp, foreign] = [makeIdpKey(), makeIdpKey()];
  const settingsBody = {
    idp_sso_url: idpSsoUrl,
    idp_entity_id: idpEntityId,
    idp_certificate: idp.certificatePem,
    attribute_mapping: { email: 'email', name: 'displayName', role: 'groups' },
    role_values: { admin: ['dbmon-admins'], viewer: ['dbmon-readers'] },
    default_role: 'member',
    jit_provisioning: true,
  };
  const put = (body: object) => server.request('PUT', '/v1/org/saml', { headers: ownerSession.headers(), body });
  const unconfigured = await server.request('GET', '/v1/org/saml', { headers: ownerSession.headers() });
  t.match(unconfigured.body, { enabled: false, idp_certificate: '', certificate: null, default_role: 'member', sso_satisfies_two_factor: true, tested_at: null });
  const saved = await put(settingsBody);
  t.equal(saved.status, 200, saved.text);
  const addresses = saved.body as { acs_url: string; sp_entity_id: string; start_url: string; metadata_url: string };
  const fields = (overrides: Partial<AssertionFields> = {}): AssertionFields => ({
    issuer: idpEntityId,
    audience: addresses.sp_entity_id,
    recipient: addresses.acs_url,
    destination: addresses.acs_url,
    inResponseTo: null,
    email: 'someone@example.test',
    ...overrides,
  });
  const post = (samlResponse: string) =>
    fetch(`${server.url}/orgs/${slug}/auth/saml/acs`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: new URLSearchParams({ SAMLResponse: samlResponse }),
      redirect: 'manual',
    });
  const signed = (overrides: Partial<AssertionFields> = {}) => encodeResponse(signAssertion(responseXml(fields(overrides)), idp));
  const startSignIn = async () => {
    const started = await fetch(`${server.url}/orgs/${slug}/auth/saml`, { redirect: 'manual' });
    t.equal(started.status, 302);
    const location = started.headers.get('location') ?? '';
    t.ok(location.startsWith(`${idpSsoUrl}?SAMLRequest=`), location);
    return requestIdOf(location);
  };
  const userCount = () => server.db.prepare('SELECT count(*) FROM users').pluck().get() as number;

  await t.test('settings: addresses from the public URL and slug, the certificate read; enabling needs a passed test', async (t) => {
    t.equal(addresses.sp_entity_id, `http://localhost/orgs/${slug}`);
    t.equal(addresses.acs_url, `http://localhost/orgs/${slug}/auth/saml/acs`);
    t.match(saved.body.certificate, { key_type: 'rsa', key_size: 2048, fingerprint_sha256: /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/ });
    t.equal(saved.body.sso_satisfies_two_factor, true);
    const refused = await put({ ...settingsBody, enabled: true });
    t.equal(refused.status, 409);
    t.equal(refused.body.error.code, 'saml_test_required');
    const weak = makeIdpKey({ bits: 1024 });
    const weakSaved = await put({ ...settingsBody, idp_certificate: weak.certificatePem });
    t.equal(weakSaved.status, 400);
    t.match(weakSaved.body.error.message, /1024 bits/);
    const expired = makeIdpKey({ notBefore: new Date(Date.now() - 10 * 86_400_000), notAfter: new Date(Date.now() - 86_400_000) });
    t.equal((await put({ ...settingsBody, idp_certificate: expired.certificatePem })).status, 400);
    const member = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const memberSession = await signIn(server, member.email);
    t.equal((await server.request('GET', '/v1/org/saml', { headers: memberSession.headers() })).status, 403);
    const memberPage = await fetch(`${server.url}/settings/saml`, { headers: { ...memberSession.headers({ csrf: false }), accept: 'text/html' } });
    t.equal(memberPage.status, 403, 'the settings page is for owners and admins');
    const ownerPages = new PageClient(server.url);
    ownerPages.cookies.set('dbmon_session', ownerSession.token);
    const form = {
      csrf_token: ownerSession.csrfToken,
      idp_sso_url: idpSsoUrl,
      idp_entity_id: idpEntityId,
      idp_certificate: idp.certificatePem,
      attribute_email: 'email',
      attribute_name: 'displayName',
      attribute_role: 'groups',
      role_values_admin: 'dbmon-admins',
      role_values_viewer: 'dbmon-readers',
      default_role: 'member',
      jit_provisioning: 'on',
      sso_satisfies_two_factor: 'on',
    };
    const untested = await ownerPages.postForm('/settings/saml', { ...form, enabled: 'on' });
    t.equal(untested.status, 409);
    t.match(untested.text, 'Test the configuration');
    const badUrl = await ownerPages.postForm('/settings/saml', { ...form, idp_sso_url: 'ftp://idp.example.test/' });
    t.equal(badUrl.status, 400);
    t.match(badUrl.text, 'idp_sso_url');
    t.equal((await ownerPages.postForm('/settings/saml', form)).location, '/settings/saml?saved=1', 'the same settings saved through the form');
    t.equal((await ownerPages.postForm('/settings/saml', { ...form, csrf_token: 'forged' })).status, 403, 'no CSRF token, no change');
    const metadata = await fetch(addresses.metadata_url.replace('http://localhost', server.url));
    t.match(await metadata.text(), new RegExp(`entityID="${addresses.sp_entity_id}"[\\s\\S]*Location="${addresses.acs_url}"`));
  });

  await t.test('the test action shows the mapped user, creates nobody, signs nobody in, and allows enabling', async (t) => {
    const started = await server.request('POST', '/v1/org/saml/test', { headers: ownerSession.headers() });
    t.equal(started.status, 200);
    const before = userCount();
    const answer = await post(signed({ inResponseTo: requestIdOf(started.body.test_url), email: 'new.admin@example.test', roles: ['dbmon-admins'] }));
    const page = await answer.text();
    t.equal(answer.status, 200, page);
    t.match(page, /new\.admin@example\.test[\s\S]*admin/);
    t.equal(answer.headers.get('set-cookie'), null, 'no session');
    t.equal(userCount(), before, 'nobody created');
    const enabled = await put({ ...settingsBody, enabled: true });
    t.equal(enabled.status, 200, enabled.text);
    t.equal(enabled.body.enabled, true);
    const audited = server.db.prepare("SELECT action FROM audit_log WHERE org_id = ? AND action LIKE 'saml.%' ORDER BY created_at, rowid").pluck().all(tenant.orgId);
    t.same(audited, ['saml.updated', 'saml.tested', 'saml.updated'], 'saved, tested, enabled');
  });

  await t.test('a valid sign-in of a JIT user with the mapped role, then the replayed assertion is refused', async (t) => {
    const response = signed({ inResponseTo: await startSignIn(), email: 'jit.reader@example.test', roles: ['other', 'dbmon-readers'] });
    const answer = await post(response);
    t.equal(answer.status, 303, await answer.text());
    const cookie = /dbmon_session=[^;]+/.exec(answer.headers.get('set-cookie') ?? '')?.[0];
    t.ok(cookie, 'a session');
    const me = await fetch(`${server.url}/v1/user`, { headers: { cookie: cookie! } });
    t.match(await me.json(), { email: 'jit.reader@example.test', role: 'viewer' });
    const replay = await post(response);
    t.equal(replay.status, 401, 'replayed');
    t.match(await replay.text(), /Sign-in refused/);
  });

  await t.test('attacks and wrong addresses are refused', async (t) => {
    const victim = 'victim@example.test';
    const cases: [string, (requestId: string) => string][] = [
      ['unsigned', (id) => encodeResponse(responseXml(fields({ inResponseTo: id, email: victim })))],
      ['tampered', (id) => encodeResponse(signAssertion(responseXml(fields({ inResponseTo: id, email: 'attacker@example.test' })), idp).replace(/attacker@example\.test/g, victim))],
      ['signed with a foreign key', (id) => encodeResponse(signAssertion(responseXml(fields({ inResponseTo: id, email: victim })), foreign))],
      [
        'signature-wrapped',
        (id) => {
          const genuine = signAssertion(responseXml(fields({ inResponseTo: id, email: 'attacker@example.test' })), idp);
          const signedAssertion = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(genuine)![0];
          const evil = responseXml(fields({ inResponseTo: id, email: victim, assertionId: '_evil' }));
          return encodeResponse(evil.replace('</saml:Issuer><saml:Subject>', `</saml:Issuer><saml:Advice>${signedAssertion}</saml:Advice><saml:Subject>`));
        },
      ],
      ['wrong audience', (id) => signed({ inResponseTo: id, audience: 'http://elsewhere.test/orgs/x' })],
      ['wrong recipient', (id) => signed({ inResponseTo: id, recipient: 'http://elsewhere.test/acs' })],
      ['wrong destination', (id) => signed({ inResponseTo: id, destination: 'http://elsewhere.test/acs' })],
      ['wrong issuer', (id) => signed({ inResponseTo: id, issuer: 'https://other-idp.example.test' })],
      ['expired', (id) => signed({ inResponseTo: id, notBefore: new Date(Date.now() - 20 * 60_000), notOnOrAfter: new Date(Date.now() - 10 * 60_000) })],
      ['not yet valid', (id) => signed({ inResponseTo: id, notBefore: new Date(Date.now() + 10 * 60_000), notOnOrAfter: new Date(Date.now() + 20 * 60_000) })],
      ['unknown InResponseTo', () => signed({ inResponseTo: '_neverSent' })],
      ['IdP-initiated', () => signed({ inResponseTo: null })],
    ];
    for (const [name, make] of cases) {
      const answer = await post(make(await startSignIn()));
      t.equal(answer.status, 401, name);
      t.equal(answer.headers.get('set-cookie'), null, `${name}: no session`);
    }
    t.equal(server.db.prepare("SELECT count(*) FROM users WHERE email = 'victim@example.test'").pluck().get(), 0, 'no victim account made');
    const refusals = server.db.prepare("SELECT count(*) FROM audit_log WHERE action = 'saml.response_refused' AND org_id = ?").pluck().get(tenant.orgId) as number;
    t.ok(refusals >= cases.length, 'every refusal audited');
  });

  await t.test('with IdP-initiated sign-in allowed, an unsolicited response signs in once and its replay is refused', async (t) => {
    t.equal((await put({ ...settingsBody, allow_idp_initiated: true })).body.tested_at, null, 'the change voids the test');
    const started = await server.request('POST', '/v1/org/saml/test', { headers: ownerSession.headers() });
    t.equal((await post(signed({ inResponseTo: requestIdOf(started.body.test_url) }))).status, 200);
    t.equal((await put({ ...settingsBody, allow_idp_initiated: true, enabled: true })).status, 200);
    const unsolicited = signed({ inResponseTo: null, email: 'unsolicited@example.test' });
    t.equal((await post(unsolicited)).status, 303);
    t.equal((await post(unsolicited)).status, 401, 'replayed');
  });

  await t.test('a comment inserted into a signed email does not cut it short (a comment is outside the signature)', async (t) => {
    const victim = await createPasswordUser(server.services, tenant.orgId, 'admin', server.clock.now);
    const attackerEmail = `${victim.email}.evil.test`;
    const genuine = signAssertion(responseXml(fields({ inResponseTo: await startSignIn(), email: attackerEmail })), idp);
    const answer = await post(encodeResponse(genuine.replaceAll(attackerEmail, `${victim.email}<!---->.evil.test`)));
    const cookie = answer.headers.get('set-cookie');
    if (cookie !== null) {
      const me = await fetch(`${server.url}/v1/user`, { headers: { cookie: cookie.split(';')[0]! } });
      t.not((await me.json()).email, victim.email, 'not signed in as the victim');
    } else {
      t.equal(answer.status, 401);
    }
  });

  await t.test('a large response (many group values) is accepted at the ACS', async (t) => {
    const roles = Array.from({ length: 800 }, (_, index) => `a-group-with-a-rather-long-name-${index}`);
    const response = signed({ inResponseTo: await startSignIn(), email: 'many.groups@example.test', roles });
    t.ok(response.length > 48 * 1024, `${response.length} characters`);
    t.equal((await post(response)).status, 303);
  });

  await t.test('errors on the browser routes are pages', async (t) => {
    const other = createTenant(server.services, server.clock.now);
    const otherSlug = server.services.accounts.organizationSettings.organization(other.orgId).slug;
    for (const path of ['/orgs/no-such-org/auth/saml', `/orgs/${otherSlug}/auth/saml`, '/orgs/no-such-org/auth/saml/metadata']) {
      const answer = await fetch(`${server.url}${path}`, { headers: { accept: 'text/html' }, redirect: 'manual' });
      t.equal(answer.status, 404, path);
      t.match(answer.headers.get('content-type'), /^text\/html/, path);
    }
    const unconfigured = await fetch(`${server.url}/orgs/${otherSlug}/auth/saml/acs`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: new URLSearchParams({ SAMLResponse: signed() }),
    });
    t.equal(unconfigured.status, 404);
    t.match(await unconfigured.text(), '<!DOCTYPE html>');
  });

  await t.test('a sign-in started while SAML was enabled is refused once it is disabled', async (t) => {
    const requestId = await startSignIn();
    const current = (await server.request('GET', '/v1/org/saml', { headers: ownerSession.headers() })).body;
    const keep = Object.fromEntries(Object.keys(settingsBody).map((name) => [name, current[name]]));
    t.equal((await put({ ...keep, allow_idp_initiated: true, enabled: false })).status, 200);
    const answer = await post(signed({ inResponseTo: requestId, email: 'late@example.test' }));
    t.equal(answer.status, 401);
    t.equal(answer.headers.get('set-cookie'), null);
    const started = await server.request('POST', '/v1/org/saml/test', { headers: ownerSession.headers() });
    t.equal((await post(signed({ inResponseTo: requestIdOf(started.body.test_url) }))).status, 200, 'a test still works while disabled');
    t.equal((await put({ ...keep, allow_idp_initiated: true, enabled: true })).status, 200);
  });

  await t.test('members must use SAML; owners keep their password, audited', async (t) => {
    const member = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    await t.rejects(signIn(server, member.email), { code: 'single_sign_on_required' });
    const failure = server.db.prepare("SELECT details FROM audit_log WHERE action = 'sign_in.failed' AND target_id = ?").pluck().get(member.userId);
    t.same(JSON.parse(failure as string), { reason: 'single_sign_on_required' }, 'the refusal is audited');
    await signIn(server, owner.email, testPassword);
    const fallbacks = server.db.prepare("SELECT count(*) FROM audit_log WHERE action = 'saml.password_fallback' AND org_id = ?").pluck().get(tenant.orgId);
    t.equal(fallbacks, 1);
  });

  await t.test('the login page offers SSO for the organization, and tells a member refused a password to use it', async (t) => {
    const browser = new PageClient(server.url);
    const login = await browser.get(`/login?org=${slug}`);
    t.match(login.text, `href="/orgs/${slug}/auth/saml"`);
    t.match(login.text, 'Sign in with SSO');
    t.notMatch((await browser.get('/login?org=no-such-org')).text, 'Sign in with SSO');
    const member = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const refused = await browser.postForm('/login', { csrf_token: formField(login.text, 'csrf_token')!, email: member.email, password: testPassword });
    t.equal(refused.status, 403);
    t.match(refused.text, 'single sign-on');
    t.notOk(browser.cookies.has('dbmon_session'));
  });

  await t.test('next: a sign-in started from a path of ours lands there; anything else lands on /', async (t) => {
    const landing = async (next: string) => {
      const started = await fetch(`${server.url}/orgs/${slug}/auth/saml?${new URLSearchParams({ next })}`, { redirect: 'manual' });
      const answer = await post(signed({ inResponseTo: requestIdOf(started.headers.get('location') ?? ''), email: owner.email }));
      t.equal(answer.status, 303);
      return answer.headers.get('location');
    };
    t.equal(await landing('/databases/db_1?range=1h'), '/databases/db_1?range=1h');
    for (const hostile of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', '/login']) t.equal(await landing(hostile), '/', `${hostile} is not followed`);
    const login = await fetch(`${server.url}/login?${new URLSearchParams({ org: slug, next: '/databases/db_1' })}`);
    t.match(await login.text(), `href="/orgs/${slug}/auth/saml?next=%2Fdatabases%2Fdb_1"`, 'the sign-in page passes next on to SSO');
  });

  await t.test('an account of another organization is not signed in, even with JIT provisioning', async (t) => {
    const other = createTenant(server.services, server.clock.now);
    const outsider = await createPasswordUser(server.services, other.orgId, 'admin', server.clock.now);
    const answer = await post(signed({ inResponseTo: await startSignIn(), email: outsider.email }));
    t.equal(answer.status, 401);
    t.equal(answer.headers.get('set-cookie'), null);
  });

  await t.test('with sso_satisfies_two_factor false, a user with a second factor is sent on to it', async (t) => {
    const { secret } = await enrollTotp(server, ownerSession);
    const changed = { ...settingsBody, allow_idp_initiated: true, sso_satisfies_two_factor: false };
    await put(changed);
    const started = await server.request('POST', '/v1/org/saml/test', { headers: ownerSession.headers() });
    t.equal((await post(signed({ inResponseTo: requestIdOf(started.body.test_url) }))).status, 200);
    t.equal((await put({ ...changed, enabled: true })).status, 200);
    const answer = await post(signed({ inResponseTo: await startSignIn(), email: owner.email }));
    t.equal(answer.status, 303);
    t.equal(answer.headers.get('location'), '/login/two-factor');
    const pendingToken = /^dbmon_pending_sign_in=([^;]+)/.exec(answer.headers.get('set-cookie') ?? '')?.[1];
    t.ok(pendingToken, 'a pending sign-in');
    server.clock.now = new Date(server.clock.now.getTime() + 30_000); // the code enrollment used is spent
    const code = totpCode(secret, server.clock.now);
    await server.services.accounts.secondFactorSignIn.finish({ pendingToken: pendingToken!, kind: 'totp', code, ip: '127.0.0.1', userAgent: 'test' }, server.clock.now);
    const audited = server.db.prepare("SELECT details FROM audit_log WHERE action = 'sign_in.succeeded' ORDER BY seq DESC LIMIT 1").pluck().get() as string;
    t.same(JSON.parse(audited), { factors: ['saml', 'totp'] }, 'the audit names SAML, not a password');
  });

  await t.test('expired requests and used assertions are forgotten by a background job', async (t) => {
    const job = server.backgroundJobs.find((candidate) => candidate instanceof SamlExpiryJob);
    t.ok(job, 'the server schedules the job');
    const count = (table: string) => server.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    t.ok(count('saml_requests') > 0 && count('saml_assertions') > 0);
    runPass(job!, new Date());
    t.ok(count('saml_requests') > 0 && count('saml_assertions') > 0, 'nothing forgotten before it expires');
    runPass(job!, new Date(Date.now() + 3_600_000));
    t.equal(count('saml_requests'), 0);
    t.equal(count('saml_assertions'), 0);
  });
});
