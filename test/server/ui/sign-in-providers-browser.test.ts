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
      },
      { allowedOrigins: [fakeOrigin] },
    );
  });
});
