import t from 'tap';
import { freePort } from '../../helpers/batch-receiver.js';
import { BrowserUnderTest } from '../../helpers/browser.js';
import { startFakeIdentityProviders } from '../../helpers/fake-identity-providers.js';
import { createPasswordUser, testPassword } from '../../helpers/sign-in.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';

t.test('sign-in providers in chromium: set up on the settings page, then a member signs in with GitHub', async (t) => {
  t.setTimeout(120_000);
  const fake = await startFakeIdentityProviders();
  t.teardown(fake.close);
  fake.clients.set('gh-browser-client', 'gh-browser-secret');
  // The server's own address is its public URL: the provider sends the browser back to it.
  const port = await freePort();
  const server = await startTestServer({ port, publicUrl: `http://127.0.0.1:${port}`, providerEndpoints: fake.endpoints });
  t.teardown(server.close);
  const browser = await BrowserUnderTest.launch(server.url, import.meta.url);
  t.teardown(() => browser.close());
  const tenant = createTenant(server.services, server.clock.now, 'pro', 'Acme Browsers');
  const admin = await createPasswordUser(server.services, tenant.orgId, 'admin', server.clock.now);
  const member = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
  const fakeOrigin = new URL(fake.endpoints.github.webUrl).origin;

  await t.test('an admin saves, tests and enables GitHub', async (t) => {
    await browser.withPage(t, async ({ page, audit }) => {
      await page.goto(`${server.url}/settings/sign-in-providers`);
      await page.getByLabel('Email').fill(admin.email);
      await page.getByLabel('Password').fill(testPassword);
      await Promise.all([page.waitForURL(`${server.url}/settings/sign-in-providers`), page.getByRole('button', { name: 'Sign in' }).click()]);
      t.equal(await page.getByLabel('Callback URL to register at GitHub').inputValue(), `${server.url}/auth/github/callback?org=acme-browsers`);
      await audit('not set up');
      const github = page.getByRole('region', { name: /GitHub/ });
      await github.getByLabel('Client ID').fill('gh-browser-client');
      await github.getByLabel('Client secret').fill('wrong-secret');
      await github.getByLabel('Offer on the sign-in page').check();
      await github.getByRole('button', { name: 'Save GitHub' }).click();
      await t.resolveMatch(page.getByRole('status').first().textContent(), 'GitHub was saved.');
      await page.getByRole('button', { name: 'Test GitHub' }).click();
      await t.resolveMatch(page.getByRole('status').first().textContent(), 'Test failed: The provider refused the client');
      await audit('test failed');
      await page.getByRole('region', { name: /GitHub/ }).getByLabel('Client secret').fill('gh-browser-secret');
      await page.getByRole('button', { name: 'Save GitHub' }).click();
      await page.getByRole('button', { name: 'Test GitHub' }).click();
      await t.resolveMatch(page.getByRole('status').first().textContent(), 'Test passed');
      t.match(await page.getByRole('heading', { name: /GitHub/ }).textContent(), 'enabled');
      await audit('test passed');
    });
  });

  await t.test('a member signs in with GitHub from {org_url}/login', async (t) => {
    fake.browserAccount = { subject: '4242', email: member.email, emailVerified: true };
    await browser.withPage(
      t,
      async ({ page, audit }) => {
        await page.goto(`${server.url}/orgs/acme-browsers/login`);
        await audit('buttons');
        await Promise.all([page.waitForURL(`${server.url}/`), page.getByRole('link', { name: 'Sign in with GitHub' }).click()]);
        await t.resolveMatch(page.getByRole('heading', { level: 1 }).textContent(), 'Overview');
        t.ok((await page.context().cookies()).some((cookie) => cookie.name === 'dbmon_session'), 'signed in');

        // The linked identity on the account page; it is not unlinked while it is the only way to sign in.
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Linked accounts' }).click();
        await page.waitForURL(`${server.url}/account/identities`);
        const row = page.getByRole('row', { name: /GitHub/ });
        await t.resolveMatch(row.textContent(), member.email);
        await audit('linked accounts');
        const passwordHash = server.db.prepare('SELECT password_hash FROM users WHERE id = ?').pluck().get(member.userId);
        server.db.prepare('UPDATE users SET password_hash = NULL WHERE id = ?').run(member.userId);
        await row.getByRole('button', { name: `Unlink GitHub (${member.email})` }).click();
        await t.resolveMatch(page.getByRole('alert').textContent(), 'You cannot unlink this account: it is your only way to sign in.');
        t.equal(await page.getByRole('row', { name: /GitHub/ }).count(), 1, 'still linked');
        await audit('last way to sign in');
        server.db.prepare('UPDATE users SET password_hash = ? WHERE id = ?').run(passwordHash, member.userId);
        await page.getByRole('button', { name: `Unlink GitHub (${member.email})` }).click();
        await t.resolveMatch(page.getByRole('status').textContent(), 'The account was unlinked.');
        await t.resolveMatch(page.locator('main').textContent(), 'No account at a sign-in provider is linked to yours.');
      },
      { allowedOrigins: [fakeOrigin], expectedConsoleErrors: [/status of 409 \(Conflict\)/] },
    );
  });
});
