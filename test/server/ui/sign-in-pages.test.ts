import t from 'tap';
import { createPasswordUser, signIn, testPassword } from '../../helpers/sign-in.js';
import { formField, PageClient, type PageResponse } from '../../helpers/page-client.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';

/** Fetches the sign-in form and posts it with these fields, as a browser would. */
async function submitLogin(client: PageClient, fields: Record<string, string>, path = '/login'): Promise<PageResponse> {
  const form = await client.get(path);
  return client.postForm(path, { csrf_token: formField(form.text, 'csrf_token') ?? '', ...fields });
}

function cspOf(response: PageResponse): Map<string, string> {
  const header = response.headers.get('content-security-policy') ?? '';
  return new Map(header.split(';').map((directive) => directive.trim().split(/\s+/)).map(([name = '', ...values]) => [name, values.join(' ')]));
}

t.test('sign-in pages', async (t) => {
  const server = await startTestServer({ now: new Date('2026-11-24T09:00:00Z') });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now, 'pro', 'Acme <Ops>');
  const { email } = await createPasswordUser(server.services, tenant.orgId, 'admin', server.clock.now);

  await t.test('the login form: HTML with a per-response CSP nonce, security headers and a login CSRF token', async (t) => {
    const client = new PageClient(server.url);
    const first = await client.get('/login');
    t.equal(first.status, 200);
    t.match(first.headers.get('content-type'), /^text\/html; charset=utf-8/);
    t.match(first.text, /^<!DOCTYPE html><html lang="en">/);
    const csp = cspOf(first);
    t.equal(csp.get('default-src'), "'none'");
    t.equal(csp.get('frame-ancestors'), "'none'");
    t.equal(csp.get('form-action'), "'self'");
    t.equal(csp.get('base-uri'), "'none'");
    t.equal(csp.get('object-src'), "'none'");
    const nonce = /'nonce-([A-Za-z0-9+/=_-]{22,})'/.exec(csp.get('script-src') ?? '')?.[1];
    t.ok(nonce, 'scripts only with the nonce');
    t.notMatch(csp.get('script-src'), /unsafe-inline|unsafe-eval/);
    const second = await client.get('/login');
    t.not(/'nonce-([^']+)'/.exec(cspOf(second).get('script-src') ?? '')?.[1], nonce, 'a new nonce for every response');
    t.equal(first.headers.get('x-frame-options'), 'DENY');
    t.equal(first.headers.get('x-content-type-options'), 'nosniff');
    t.equal(first.headers.get('referrer-policy'), 'same-origin');
    t.equal(first.headers.get('cross-origin-opener-policy'), 'same-origin');
    t.equal(first.headers.get('cache-control'), 'no-store');
    t.equal(first.headers.get('strict-transport-security'), null, 'no HSTS over plain http');
    for (const tag of first.text.match(/<script\b[^>]*>/g) ?? []) t.match(tag, `nonce="${nonce}"`, 'every script tag carries the nonce');
    const setCookie = first.headers.get('set-cookie') ?? '';
    t.match(setCookie, /^dbmon_login_csrf=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
    t.ok(formField(first.text, 'csrf_token'), 'the form carries the token');
    t.match(first.text, /<label for="email">/);
    t.match(first.text, /<label for="password">/);
    t.notMatch(first.text, /name="csrf-token"/, 'no session, no session CSRF meta tag');
  });

  await t.test('the stylesheet is ours, served with nosniff and a versioned address', async (t) => {
    const client = new PageClient(server.url);
    const page = await client.get('/login');
    const href = /<link rel="stylesheet" href="([^"]+)"/.exec(page.text)?.[1];
    t.match(href, /^\/assets\/dbmon\.css\?v=[0-9a-f]{12}$/);
    const css = await client.get(href!);
    t.equal(css.status, 200);
    t.match(css.headers.get('content-type'), /^text\/css/);
    t.equal(css.headers.get('x-content-type-options'), 'nosniff');
    t.match(css.headers.get('cache-control'), /immutable/);
    t.match(css.text, /:focus-visible/, 'keyboard focus is visible');
  });

  await t.test('pages are not in the OpenAPI document', async (t) => {
    const document = (await server.request('GET', '/v1/openapi.json')).body as { paths: Record<string, unknown> };
    for (const path of ['/', '/login', '/logout']) t.notOk(path in document.paths, path);
    const servedBesideV1 = ['/healthz', '/readyz', '/metrics', '/metrics/targets', '/metrics/databases/{id}', '/.well-known/oauth-authorization-server'];
    const outside = Object.keys(document.paths).filter((path) => !path.startsWith('/v1/') && !servedBesideV1.includes(path));
    t.same(outside, [], 'every documented path is the API, health, a scrape target or OAuth metadata');
  });

  await t.test('login CSRF: a form posted without the token of this browser signs no one in', async (t) => {
    const victim = new PageClient(server.url);
    const noToken = await victim.postForm('/login', { email, password: testPassword });
    t.equal(noToken.status, 403, 'no cookie, no field');
    t.match(noToken.headers.get('content-type'), /^text\/html/);
    t.equal(victim.cookies.get('dbmon_session'), undefined);

    const attacker = new PageClient(server.url);
    const attackerForm = await attacker.get('/login');
    await victim.get('/login');
    const foreignToken = await victim.postForm('/login', { email, password: testPassword, csrf_token: formField(attackerForm.text, 'csrf_token')! });
    t.equal(foreignToken.status, 403, "another browser's token does not match this browser's cookie");
    t.equal(victim.cookies.get('dbmon_session'), undefined);

    const cookieOnly = await victim.postForm('/login', { email, password: testPassword, csrf_token: victim.cookies.get('dbmon_login_csrf')! });
    t.equal(cookieOnly.status, 403, 'the cookie value itself is not the token (a planted cookie gives no token)');
    t.match(cookieOnly.text, /expired|try again/i);
    t.ok(formField(cookieOnly.text, 'csrf_token'), 'with a fresh form to try again');
  });

  await t.test('a wrong password and an unknown email get the same message; what was typed is escaped', async (t) => {
    const client = new PageClient(server.url);
    const wrongPassword = await submitLogin(client, { email, password: 'not-the-password' });
    const hostile = '"><script>alert(1)</script>@example.test';
    const unknown = await submitLogin(client, { email: hostile, password: testPassword });
    t.equal(wrongPassword.status, 401);
    t.equal(unknown.status, 401);
    const message = (html: string) => /<p role="alert"[^>]*>([^<]*)<\/p>/.exec(html)?.[1];
    t.ok(message(wrongPassword.text));
    t.equal(message(unknown.text), message(wrongPassword.text), 'no enumeration by message');
    t.notMatch(unknown.text, /<script>alert/, 'escaped');
    t.match(unknown.text, 'value="&quot;>&lt;script>alert(1)&lt;/script>@example.test"', 'kept in the field, escaped');
    t.equal(client.cookies.get('dbmon_session'), undefined);
  });

  await t.test('signing in: a new session cookie, the one held before ends (fixation)', async (t) => {
    const client = new PageClient(server.url);
    const form = await client.get('/login');
    const earlier = await signIn(server, email);
    client.cookies.set('dbmon_session', earlier.token);
    const response = await client.postForm('/login', { csrf_token: formField(form.text, 'csrf_token')!, email, password: testPassword });
    t.equal(response.status, 303);
    t.equal(response.location, '/');
    t.match(response.headers.getSetCookie().find((cookie) => cookie.startsWith('dbmon_session=')), /; Path=\/; HttpOnly; SameSite=Lax$/);
    const token = client.cookies.get('dbmon_session');
    t.ok(token);
    t.not(token, earlier.token, 'the id changes at sign-in');
    t.equal((await server.request('GET', '/v1/user', { headers: earlier.headers() })).status, 401, 'the session held before ended');
    t.equal((await server.request('GET', '/v1/user', { headers: { cookie: `dbmon_session=${token}` } })).status, 200);
    t.equal(client.cookies.get('dbmon_login_csrf'), undefined, 'the login token is spent');
  });

  await t.test('next= only leads to a path of this server', async (t) => {
    const cases: [string, string][] = [
      ['/databases?page=2#top', '/databases?page=2#top'],
      ['//evil.example/', '/'],
      ['/\\evil.example/', '/'],
      ['https://evil.example/', '/'],
      ['javascript:alert(1)', '/'],
      ['\t//evil.example', '/'],
      ['/login', '/'],
    ];
    for (const [next, expected] of cases) {
      const client = new PageClient(server.url);
      const form = await client.get(`/login?next=${encodeURIComponent(next)}`);
      const response = await client.postForm('/login', {
        csrf_token: formField(form.text, 'csrf_token')!,
        next: formField(form.text, 'next') ?? next,
        email,
        password: testPassword,
      });
      t.equal(response.status, 303, next);
      t.equal(response.location, expected, next);
    }
  });

  await t.test('the landing page: who you are, your organization, the session CSRF token; signed out it sends you to sign in', async (t) => {
    const signedOut = await new PageClient(server.url).get('/');
    t.equal(signedOut.status, 303);
    t.equal(signedOut.location, '/login?next=%2F');

    const client = new PageClient(server.url);
    await submitLogin(client, { email, password: testPassword });
    const home = await client.get('/');
    t.equal(home.status, 200);
    t.match(home.text, email);
    t.match(home.text, '<span class="organization">Acme &lt;Ops></span>', "the organization's name, escaped");
    t.match(home.text, 'admin');
    const csrfToken = /<meta name="csrf-token" content="([^"]+)"/.exec(home.text)?.[1];
    const profile = await server.request('GET', '/v1/user', { headers: { cookie: `dbmon_session=${client.cookies.get('dbmon_session')!}` } });
    t.equal(csrfToken, profile.body.csrf_token, "the session's CSRF token, as GET /v1/user gives it");
    t.equal(formField(home.text, 'csrf_token'), csrfToken, 'the sign-out form carries it');

    const again = await client.get('/login');
    t.equal(again.status, 303, 'signed in, the login page moves on');
    t.equal(again.location, '/');
  });

  await t.test('sign-out: POST with the session CSRF token; without it the session stays; GET asks first', async (t) => {
    const client = new PageClient(server.url);
    await submitLogin(client, { email, password: testPassword });
    const token = client.cookies.get('dbmon_session')!;
    const confirm = await client.get('/logout');
    t.equal(confirm.status, 200);
    t.match(confirm.text, /<form method="post" action="\/logout"/);

    const forged = await client.postForm('/logout', {});
    t.equal(forged.status, 403, 'no token: refused');
    t.match(forged.headers.get('content-type'), /^text\/html/);
    const wrong = await client.postForm('/logout', { csrf_token: 'A'.repeat(43) });
    t.equal(wrong.status, 403, 'a wrong token: refused');
    t.equal((await server.request('GET', '/v1/user', { headers: { cookie: `dbmon_session=${token}` } })).status, 200, 'still signed in');

    const out = await client.postForm('/logout', { csrf_token: formField(confirm.text, 'csrf_token')! });
    t.equal(out.status, 303);
    t.equal(out.location, '/login?signed_out=1');
    t.equal(client.cookies.get('dbmon_session'), undefined, 'the cookie is cleared');
    t.equal((await server.request('GET', '/v1/user', { headers: { cookie: `dbmon_session=${token}` } })).status, 401, 'the session ended');
    const after = await client.get('/login?signed_out=1');
    t.match(after.text, /signed out/i);
    const signedOutConfirm = await client.get('/logout');
    t.equal(signedOutConfirm.status, 303, 'nothing to sign out of');
    t.equal(signedOutConfirm.location, '/login');
    const signedOutPost = await client.postForm('/logout', { csrf_token: formField(confirm.text, 'csrf_token')! });
    t.equal(signedOutPost.status, 303, 'signing out twice just leads to the sign-in form');
    t.equal(signedOutPost.location, '/login');
  });

  await t.test('throttling: the 11th failure in 15 minutes is a 429 page with the rate-limit headers', async (t) => {
    server.clock.now = new Date(server.clock.now.getTime() + 16 * 60_000); // the failures of the tests above, from this address too, are past
    const { email: target } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const client = new PageClient(server.url);
    for (let attempt = 1; attempt <= 10; attempt++) {
      const response = await submitLogin(client, { email: target, password: `wrong-${attempt}` });
      t.equal(response.status, 401, `attempt ${attempt}`);
    }
    const refused = await submitLogin(client, { email: target, password: testPassword });
    t.equal(refused.status, 429, 'even the right password waits');
    t.match(refused.headers.get('content-type'), /^text\/html/);
    t.equal(refused.headers.get('x-ratelimit-limit'), '10');
    t.equal(refused.headers.get('x-ratelimit-remaining'), '0');
    const reset = Number(refused.headers.get('x-ratelimit-reset'));
    t.equal(reset, Math.ceil((server.clock.now.getTime() + 15 * 60_000) / 1000));
    t.equal(refused.headers.get('retry-after'), String(reset - Math.floor(server.clock.now.getTime() / 1000)));
    t.match(refused.text, /Too many/);
    t.equal(client.cookies.get('dbmon_session'), undefined);
  });

  await t.test('errors on browser routes are HTML pages; the API keeps its JSON', async (t) => {
    const client = new PageClient(server.url);
    const missing = await client.get('/nowhere');
    t.equal(missing.status, 404);
    t.match(missing.headers.get('content-type'), /^text\/html/);
    t.ok(missing.headers.get('content-security-policy'));
    t.match(missing.text, /<h1[^>]*>Page not found<\/h1>/);
    const api = await client.get('/v1/nowhere');
    t.equal(api.status, 404);
    t.match(api.headers.get('content-type'), /^application\/json/);
    const method = await client.send('PUT', '/login', undefined);
    t.equal(method.status, 405);
    t.match(method.headers.get('content-type'), /^text\/html/);
    t.match(method.headers.get('allow'), /POST/);
    const tooLarge = await client.postForm('/login', { email: 'x'.repeat(70_000), password: 'y' });
    t.equal(tooLarge.status, 413);
    t.match(tooLarge.headers.get('content-type'), /^text\/html/);
  });

  await t.test('an unexpected failure is a 500 page with the request id, logged, without details', async (t) => {
    server.clock.now = new Date(server.clock.now.getTime() + 16 * 60_000); // past the throttling above
    const client = new PageClient(server.url);
    t.equal((await submitLogin(client, { email, password: testPassword })).status, 303);
    server.db.exec('ALTER TABLE sessions RENAME TO sessions_away');
    t.teardown(() => server.db.exec('ALTER TABLE sessions_away RENAME TO sessions'));
    const failed = await client.get('/');
    t.equal(failed.status, 500);
    t.match(failed.headers.get('content-type'), /^text\/html/);
    const requestId = failed.headers.get('x-request-id')!;
    t.match(failed.text, `Request id: ${requestId}`);
    t.notMatch(failed.text, /sessions|SQLITE|at /, 'no SQL or stack');
    t.ok(server.logLines.some((line) => line.includes('page failed') && line.includes(requestId)), 'logged with the request id');
  });
});

t.test('under an https public URL the login CSRF cookie is Secure and __Host- prefixed, and HSTS is sent', async (t) => {
  const server = await startTestServer({ publicUrl: 'https://dbmon.example.test' });
  t.teardown(server.close);
  const page = await new PageClient(server.url).get('/login');
  t.match(page.headers.get('set-cookie'), /^__Host-dbmon_login_csrf=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
  t.equal(page.headers.get('strict-transport-security'), 'max-age=31536000');
});
