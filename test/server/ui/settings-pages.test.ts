import t from 'tap';
import { hashPassword } from '../../../server/auth/passwords/password-hash.js';
import { createPasswordUser, signIn, testPassword } from '../../helpers/sign-in.js';
import { newPkce, registerApplication } from '../../helpers/oauth-flow.js';
import { createTenant, createUserKey, startTestServer } from '../../helpers/test-server.js';

const everyone = ['/settings/api-keys', '/settings/sessions', '/settings/profile', '/settings/authorized-applications'];
const administration = ['/settings/users', '/settings/security', '/settings/oauth-applications', '/settings/audit-log'];

t.test('settings pages: who may open which, escaping, the frame', async (t) => {
  const server = await startTestServer({ now: new Date('2026-11-24T09:00:00Z') });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now, 'pro');
  const attack = '<img src=x onerror=alert(1)>';
  const member = server.services.identity.createUser(
    { orgId: tenant.orgId, email: 'mallory@example.test', name: attack, role: 'member', passwordHash: await hashPassword(testPassword) },
    server.clock.now,
  );
  const { email: adminEmail } = await createPasswordUser(server.services, tenant.orgId, 'admin', server.clock.now);
  const memberSession = await signIn(server, member.email);
  const adminSession = await signIn(server, adminEmail);
  const get = (path: string, session = memberSession) =>
    fetch(`${server.url}${path}`, { headers: { accept: 'text/html', cookie: session.headers().cookie! }, redirect: 'manual' });
  const settingsNavigation = (html: string) => [.../<nav aria-label="Settings"[\s\S]*?<\/nav>/.exec(html)![0].matchAll(/href="([^"]+)"/g)].map((match) => match[1]);

  await t.test('attack: a member opening an administration page gets a 403 page, and no link to it', async (t) => {
    for (const path of administration) {
      const answer = await get(path);
      t.equal(answer.status, 403, path);
      t.match(answer.headers.get('content-type'), 'text/html');
      t.notMatch(await answer.text(), 'csrf-token', 'no frame of the page');
    }
    const html = await (await get('/settings/api-keys')).text();
    t.same(settingsNavigation(html), everyone, 'a member sees only the pages open to everyone');
  });

  await t.test('attack: signed out, every settings page leads to sign-in and back', async (t) => {
    for (const path of ['/settings', ...everyone, ...administration]) {
      const answer = await fetch(`${server.url}${path}`, { headers: { accept: 'text/html' }, redirect: 'manual' });
      t.equal(answer.status, 303, path);
      t.equal(answer.headers.get('location'), `/login?${new URLSearchParams({ next: path })}`);
    }
  });

  await t.test("attack: a user named like markup is shown as text on the profile page", async (t) => {
    const profile = await (await get('/settings/profile')).text();
    t.notMatch(profile, '<img src=x', 'no element made of the name');
    t.match(profile, 'value="&lt;img src=x onerror=alert(1)>"');
  });

  await t.test('owners and admins open every settings page; /settings leads to the first', async (t) => {
    const html = await (await get('/settings/api-keys', adminSession)).text();
    t.same(settingsNavigation(html), [...everyone, ...administration]);
    for (const path of [...everyone, ...administration]) {
      const answer = await get(path, adminSession);
      t.equal(answer.status, 200, path);
      const page = await answer.text();
      t.match(page, /<a href="\/settings\/api-keys" aria-current="page">Settings<\/a>/, 'the main navigation marks Settings');
      t.match(page, new RegExp(`<a href="${path}" aria-current="page">`), 'the settings navigation marks the page');
      t.match(page, new RegExp(`<script src="/assets/web/settings-${path.split('/')[2]}-[A-Z0-9]+\\.js" nonce="`), 'its script, under the nonce');
      t.notMatch(page, /<script(?![^>]*\bsrc=)/, 'no inline script');
      t.notMatch(page, /\son[a-z]+=/i, 'no inline handler');
    }
    const first = await get('/settings', adminSession);
    t.equal(first.status, 303);
    t.equal(first.headers.get('location'), '/settings/api-keys');
  });

  await t.test('the API the pages call refuses an unsafe call without the CSRF token', async (t) => {
    const answer = await fetch(`${server.url}/v1/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: memberSession.headers({ csrf: false }).cookie! },
      body: JSON.stringify({ name: 'forged', permission: 'read' }),
    });
    t.equal(answer.status, 403);
    t.equal(((await answer.json()) as { error: { code: string } }).error.code, 'csrf_token_invalid');
  });

  await t.test('attack: an OAuth application named like markup is shown as text where the server renders its name, the consent page', async (t) => {
    const adminKey = createUserKey(server.services, tenant.orgId, server.clock.now, 'admin', 'write', ['api_keys']).key;
    const app = await registerApplication(server, adminKey, { name: attack, redirect_uris: ['https://reports.example.test/callback'] });
    const query = new URLSearchParams({ response_type: 'code', client_id: app.client_id, redirect_uri: app.redirect_uris[0]!, state: 's', code_challenge: newPkce().challenge, code_challenge_method: 'S256' });
    const answer = await get(`/oauth/authorize?${query}`);
    t.equal(answer.status, 200);
    const consent = await answer.text();
    t.notMatch(consent, '<img src=x', 'no element made of the name');
    t.match(consent, '&lt;img src=x onerror=alert(1)>');
  });
});
