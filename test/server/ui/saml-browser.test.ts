import t from 'tap';
import { freePort } from '../../helpers/batch-receiver.js';
import { BrowserUnderTest } from '../../helpers/browser.js';
import { makeIdpKey } from '../../helpers/saml-identity-provider.js';
import { startSamlIdp } from '../../helpers/saml-idp-server.js';
import { createPasswordUser, testPassword } from '../../helpers/sign-in.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';

t.test('SAML in chromium: an owner sets it up and tests it, then a new member signs in through the identity provider', async (t) => {
  const port = await freePort();
  const server = await startTestServer({ port, publicUrl: `http://127.0.0.1:${port}` });
  t.teardown(server.close);
  const key = makeIdpKey();
  const entityId = 'https://idp.example.test/saml';
  const idp = await startSamlIdp(key, entityId, ['dbmon-admins']);
  t.teardown(idp.close);
  const browser = await BrowserUnderTest.launch(server.url, import.meta.url);
  t.teardown(() => browser.close());
  const tenant = createTenant(server.services, server.clock.now, 'enterprise', 'Acme Single Sign On');
  const owner = await createPasswordUser(server.services, tenant.orgId, 'owner', server.clock.now);

  await t.test('the settings page saves the identity provider and its test shows the mapped user', async (t) => {
    await browser.withPage(
      t,
      async ({ page, audit }) => {
        await page.goto(`${server.url}/login?next=${encodeURIComponent('/settings/saml')}`);
        await page.getByLabel('Email').fill(owner.email);
        await page.getByLabel('Password').fill(testPassword);
        await Promise.all([page.waitForURL(/\/settings\/saml$/), page.getByRole('button', { name: 'Sign in' }).click()]);
        await t.resolveMatch(page.locator('main').textContent(), `http://127.0.0.1:${port}/orgs/acme-single-sign-on/auth/saml/acs`);
        await page.getByLabel('SSO URL').fill(idp.ssoUrl);
        await page.getByLabel('Entity ID (issuer)').fill(entityId);
        await page.getByLabel('X.509 certificate (PEM)').fill(key.certificatePem);
        await page.getByLabel('Role attribute').fill('groups');
        await page.getByLabel('Role values that give admin (comma-separated)').fill('dbmon-admins');
        await page.getByLabel('Create an account at the first sign-in of an unknown email').check();
        await Promise.all([page.waitForURL(/saved=1/), page.getByRole('button', { name: 'Save' }).click()]);
        await t.resolveMatch(page.locator('#saml-fingerprint').textContent(), /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
        await audit('saved');
        await Promise.all([page.waitForURL(`${idp.ssoUrl}?**`), page.getByRole('button', { name: 'Test with the identity provider' }).click()]);
        await page.getByLabel('Sign in as').fill('new.admin@example.test');
        await page.getByRole('button', { name: 'Continue' }).click();
        await Promise.all([page.waitForURL(/\/auth\/saml\/acs$/), page.getByRole('button', { name: 'Send to dbmon' }).click()]);
        await t.resolveMatch(page.locator('#saml-test-email').textContent(), 'new.admin@example.test');
        await t.resolveMatch(page.locator('#saml-test-role').textContent(), 'admin');
        await audit('test-result');
        await page.goto(`${server.url}/settings/saml`);
        await page.getByLabel('Enabled (needs a passed test of these settings)').check();
        await Promise.all([page.waitForURL(/saved=1/), page.getByRole('button', { name: 'Save' }).click()]);
        await t.resolveMatch(page.locator('main').textContent(), 'Enabled: members sign in through SAML');
      },
      { allowedOrigins: [idp.origin] },
    );
    t.equal(server.db.prepare("SELECT count(*) FROM users WHERE email = 'new.admin@example.test'").pluck().get(), 0, 'the test created nobody');
  });

  await t.test('"Sign in with SSO" on the login page: through the identity provider to a new account with the mapped role', async (t) => {
    await browser.withPage(
      t,
      async ({ page, audit }) => {
        await page.goto(`${server.url}/login?org=acme-single-sign-on`);
        await audit('login-with-sso');
        await Promise.all([page.waitForURL(`${idp.ssoUrl}?**`), page.getByRole('link', { name: 'Sign in with SSO' }).click()]);
        await page.getByLabel('Sign in as').fill('new.admin@example.test');
        await page.getByRole('button', { name: 'Continue' }).click();
        await Promise.all([page.waitForURL(`${server.url}/`), page.getByRole('button', { name: 'Send to dbmon' }).click()]);
        await t.resolveMatch(page.locator('header').textContent(), 'new.admin@example.test');
      },
      { allowedOrigins: [idp.origin] },
    );
    t.match(server.db.prepare("SELECT role FROM users WHERE email = 'new.admin@example.test'").get(), { role: 'admin' });
  });
});
