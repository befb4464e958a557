import t from 'tap';
import { SignInThrottledError } from '../../../server/auth/sessions/sign-in-service.js';
import { BrowserUnderTest } from '../../helpers/browser.js';
import { createPasswordUser, testPassword } from '../../helpers/sign-in.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';

t.test('sign-in pages in chromium', async (t) => {
  const server = await startTestServer();
  t.teardown(server.close);
  const browser = await BrowserUnderTest.launch(server.url, import.meta.url);
  t.teardown(() => browser.close());
  const tenant = createTenant(server.services, server.clock.now, 'pro', 'Acme Operations');
  const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);

  await t.test('signing in with the keyboard leads to the start page, under a new HttpOnly session cookie', async (t) => {
    await browser.withPage(t, async ({ page, audit }) => {
      await page.goto(`${server.url}/`);
      t.equal(new URL(page.url()).pathname, '/login', 'signed out, / leads to the sign-in form');
      await audit('form');
      const focused = () => page.evaluate(() => ({ id: document.activeElement?.id ?? '', outline: getComputedStyle(document.activeElement!).outlineStyle }));
      await page.keyboard.press('Tab');
      t.same(await focused(), { id: '', outline: 'solid' }, 'the first stop, the dbmon link, shows its focus');
      await page.keyboard.press('Tab');
      t.same(await focused(), { id: 'email', outline: 'solid' }, 'then the email field');
      await page.keyboard.type(email);
      await page.keyboard.press('Tab');
      await page.keyboard.type(testPassword);
      await Promise.all([page.waitForURL(`${server.url}/`), page.keyboard.press('Enter')]);
      await t.resolveMatch(page.getByRole('heading', { level: 1 }).textContent(), 'Overview');
      await t.resolveMatch(page.locator('.masthead').textContent(), 'Acme Operations');
      const cookies = await page.context().cookies();
      const session = cookies.find((cookie) => cookie.name === 'dbmon_session');
      t.ok(session?.httpOnly, 'HttpOnly');
      t.equal(session?.sameSite, 'Lax');
      t.notOk(cookies.some((cookie) => cookie.name === 'dbmon_login_csrf'), 'the login token is spent');
      const meta = await page.locator('meta[name="csrf-token"]').getAttribute('content');
      t.match(meta, /^[0-9A-Za-z]{43}$/, 'the page carries the session CSRF token');
    });
  });

  await t.test('a wrong password shows one message and keeps the email', async (t) => {
    await browser.withPage(t, async ({ page }) => {
      await page.goto(`${server.url}/login`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill('not-the-password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await t.resolveMatch(page.getByRole('alert').textContent(), 'The email or password is wrong.');
      t.equal(await page.getByLabel('Email').inputValue(), email);
      t.equal(await page.getByLabel('Password').inputValue(), '', 'the password is never sent back');
      t.notOk((await page.context().cookies()).some((cookie) => cookie.name === 'dbmon_session'));
    }, { expectedConsoleErrors: [/status of 401/] });
  });

  await t.test('signing out asks, ends the session and says so', async (t) => {
    await browser.withPage(t, async ({ page, audit }) => {
      await page.goto(`${server.url}/login`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(testPassword);
      await Promise.all([page.waitForURL(`${server.url}/`), page.getByRole('button', { name: 'Sign in' }).click()]);
      await page.goto(`${server.url}/logout`);
      await t.resolveMatch(page.getByRole('heading', { level: 1 }).textContent(), 'Sign out?');
      await audit('confirm');
      await Promise.all([page.waitForURL(/\/login\?signed_out=1$/), page.locator('main').getByRole('button', { name: 'Sign out' }).click()]);
      await t.resolveMatch(page.getByRole('status').textContent(), 'You have signed out.');
      t.notOk((await page.context().cookies()).some((cookie) => cookie.name === 'dbmon_session'), 'the cookie is gone');
      const home = await page.request.get(`${server.url}/`, { maxRedirects: 0 });
      t.equal(home.status(), 303, 'the start page wants a sign-in again');
    });
  });

  await t.test('throttled: the sign-in form answers 429 with the contract headers and says when to retry', async (t) => {
    const { email: target } = await createPasswordUser(server.services, tenant.orgId, 'viewer', server.clock.now);
    for (let attempt = 0; attempt < 10; attempt++) {
      await server.services.accounts.signIn
        .signIn({ email: target, password: `guess-${attempt}`, ip: '192.0.2.7', userAgent: 'guesser' }, server.clock.now)
        .catch((error: unknown) => t.notOk(error instanceof SignInThrottledError, 'not yet throttled'));
    }
    await browser.withPage(t, async ({ page }) => {
      await page.goto(`${server.url}/login`);
      await page.getByLabel('Email').fill(target);
      await page.getByLabel('Password').fill(testPassword);
      const [response] = await Promise.all([page.waitForResponse(`${server.url}/login`), page.getByRole('button', { name: 'Sign in' }).click()]);
      t.equal(response.status(), 429);
      const headers = response.headers();
      t.equal(headers['x-ratelimit-limit'], '10');
      t.equal(headers['x-ratelimit-remaining'], '0');
      t.match(headers['x-ratelimit-reset'], /^\d+$/);
      t.match(headers['retry-after'], /^\d+$/);
      await t.resolveMatch(page.getByRole('alert').textContent(), /^Too many sign-in attempts\. Try again in 15 minutes\.$/);
    }, { expectedConsoleErrors: [/status of 429/] });
  });

  await t.test('the CSP is enforced: an inline script without the nonce never runs, one with it does', async (t) => {
    await browser.withPage(
      t,
      async ({ page }) => {
        const response = await page.goto(`${server.url}/login`);
        const csp = response!.headers()['content-security-policy'] ?? '';
        const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
        t.ok(nonce, 'the CSP names a nonce');
        t.same(await page.evaluate(() => [...document.scripts].filter((script) => script.nonce === '').length), 0, 'no script on the page lacks the nonce');
        const run = (withNonce: string | null) =>
          page.evaluate((scriptNonce) => {
            const violation = new Promise<string>((resolve) => document.addEventListener('securitypolicyviolation', (event) => resolve(event.violatedDirective), { once: true }));
            const script = document.createElement('script');
            if (scriptNonce !== null) script.nonce = scriptNonce;
            script.textContent = 'document.body.dataset.ran = "yes"';
            document.head.append(script);
            return Promise.race([violation, new Promise<string>((resolve) => setTimeout(() => resolve(document.body.dataset.ran ?? 'no'), 500))]);
          }, withNonce);
        t.equal(await run(null), 'script-src-elem', 'without the nonce: refused by script-src');
        t.equal(await page.evaluate(() => document.body.dataset.ran ?? 'no'), 'no');
        t.equal(await run(nonce!), 'yes', 'with the nonce: it runs');
      },
      { expectedConsoleErrors: [/Content Security Policy/] },
    );
  });
});
