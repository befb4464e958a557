import t from 'tap';
import { operatorOrigin } from '../../../server/auth/audit/audit-origin.js';
import { BrowserUnderTest } from '../../helpers/browser.js';
import { createPasswordUser, signIn, testPassword } from '../../helpers/sign-in.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';
import { enrollTotp, totpCode } from '../../helpers/two-factor.js';

t.test('two-factor pages in chromium', async (t) => {
  // Two whole sign-ins and an enrollment in a browser, each page checked with axe.
  t.setTimeout(240_000);
  // Ten seconds into a 30 s step, on the server's clock, which the test moves.
  const server = await startTestServer({ now: new Date('2026-03-02T10:00:10Z') });
  t.teardown(server.close);
  const browser = await BrowserUnderTest.launch(server.url, import.meta.url);
  t.teardown(() => browser.close());
  const tenant = createTenant(server.services, server.clock.now, 'pro', 'Acme Operations');
  server.services.accounts.organizationSettings.update(operatorOrigin(tenant.orgId), { require_two_factor: true, two_factor_grace_period_days: 7 }, server.clock.now);
  const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);

  await t.test('required by the organization: sent to enrollment after sign-in, set up with the QR code secret, then signing in asks for the code', async (t) => {
    await browser.withPage(t, async ({ page, audit }) => {
      await page.goto(`${server.url}/login`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(testPassword);
      await Promise.all([page.waitForURL(`${server.url}/account/two-factor`), page.getByRole('button', { name: 'Sign in' }).click()]);
      await t.resolveMatch(page.getByRole('status').textContent(), 'set it up within 7 days');
      await audit('sent to enrollment');

      await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
      await t.resolveMatch(page.getByRole('heading', { level: 1 }).textContent(), 'Set up an authenticator app');
      t.ok(await page.getByRole('img', { name: /QR code/ }).locator('svg').isVisible(), 'the QR code is drawn inline');
      await audit('qr code');
      const secret = (await page.locator('#totp-secret').textContent())!.replace(/\s/g, '');
      t.match(secret, /^[A-Z2-7]{32}$/);

      await page.getByLabel('Code from the app').fill(totpCode(secret, server.clock.now, 2));
      await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
      await t.resolveMatch(page.getByRole('alert').textContent(), 'That code is not the one the app shows now');
      t.equal(await page.locator('#totp-secret').textContent().then((text) => text!.replace(/\s/g, '')), secret, 'the same secret is shown again');

      await page.getByLabel('Code from the app').fill(totpCode(secret, server.clock.now));
      await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
      await t.resolveMatch(page.getByRole('heading', { level: 1 }).textContent(), 'Your recovery codes');
      const codes = await page.locator('#recovery-codes li').allTextContents();
      t.equal(codes.length, 10);
      t.equal(await page.getByRole('link', { name: 'Download' }).getAttribute('download'), 'dbmon-recovery-codes.txt');
      t.match(decodeURIComponent((await page.getByRole('link', { name: 'Download' }).getAttribute('href'))!), codes[0]!);
      t.equal(await page.getByRole('button', { name: 'Copy' }).getAttribute('data-codes').then((text) => text!.includes(codes[9]!)), true);
      await audit('recovery codes');
      await Promise.all([page.waitForURL(`${server.url}/`), page.getByRole('link', { name: 'I have saved them, continue' }).click()]);

      await page.goto(`${server.url}/logout`);
      await Promise.all([page.waitForURL(/\/login\?signed_out=1$/), page.locator('main').getByRole('button', { name: 'Sign out' }).click()]);
      server.clock.now = new Date(server.clock.now.getTime() + 30_000);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(testPassword);
      await Promise.all([page.waitForURL(`${server.url}/login/two-factor`), page.getByRole('button', { name: 'Sign in' }).click()]);
      t.notOk((await page.context().cookies()).some((cookie) => cookie.name === 'dbmon_session'), 'no session before the second factor');
      await audit('second step');
      await page.getByLabel('Code from your authenticator app').fill(totpCode(secret, server.clock.now));
      await Promise.all([page.waitForURL(`${server.url}/`), page.getByRole('button', { name: 'Verify' }).click()]);
      await t.resolveMatch(page.getByRole('heading', { level: 1 }).textContent(), 'Overview');
      const cookies = await page.context().cookies();
      t.ok(cookies.find((cookie) => cookie.name === 'dbmon_session')?.httpOnly, 'a session, HttpOnly');
      t.notOk(cookies.some((cookie) => cookie.name === 'dbmon_pending_sign_in'), 'the pending sign-in is spent');
    }, { expectedConsoleErrors: [/status of 400/] });
  });

  await t.test('a wrong code is refused with one message; a recovery code signs in', async (t) => {
    const user = await createPasswordUser(server.services, tenant.orgId, 'viewer', server.clock.now);
    const { recoveryCodes } = await enrollTotp(server, await signIn(server, user.email));
    await browser.withPage(
      t,
      async ({ page }) => {
        await page.goto(`${server.url}/login`);
        await page.getByLabel('Email').fill(user.email);
        await page.getByLabel('Password').fill(testPassword);
        await Promise.all([page.waitForURL(`${server.url}/login/two-factor`), page.getByRole('button', { name: 'Sign in' }).click()]);
        await page.getByLabel('Code from your authenticator app').fill('12345');
        await page.getByRole('button', { name: 'Verify' }).click();
        await t.resolveMatch(page.getByRole('alert').textContent(), 'That code is wrong or was already used.');
        await page.getByText('Use a recovery code instead').click();
        await page.getByLabel('Recovery code').fill(recoveryCodes[0]!);
        await Promise.all([page.waitForURL(`${server.url}/`), page.getByRole('button', { name: 'Use recovery code' }).click()]);
      },
      { expectedConsoleErrors: [/status of 401/] },
    );
  });
});
