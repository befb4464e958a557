import type { Locator } from 'playwright-core';
import t from 'tap';
import { BrowserUnderTest, signInThroughPage } from '../../helpers/browser.js';
import { newPkce, OAuthBrowser } from '../../helpers/oauth-flow.js';
import { createPasswordUser, signIn, testPassword } from '../../helpers/sign-in.js';
import { createTenant, createUserKey, startTestServer } from '../../helpers/test-server.js';

/** The settings pages in chromium: what they show and do is what the API holds. */
t.test('settings in chromium', async (t) => {
  t.setTimeout(120_000);
  const server = await startTestServer();
  t.teardown(server.close);
  Object.defineProperty(server.clock, 'now', { get: () => new Date() });
  const tenant = createTenant(server.services, server.clock.now, 'pro', 'Acme Operations');
  const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
  const browser = await BrowserUnderTest.launch(server.url, import.meta.url);
  t.teardown(() => browser.close());

  await t.test('an API key made in the page works against the API until it is revoked in the page', async (t) => {
    await browser.withPage(t, async ({ page, audit }) => {
      await signInThroughPage(page, server.url, email, testPassword, '/settings/api-keys');
      await t.resolveMatch(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).getAttribute('aria-current'), 'page');
      await said(page.locator('#api-keys-status'), 'No keys yet.');
      await page.getByLabel('Name', { exact: true }).fill('<img src=x onerror=alert(1)>');
      await page.getByLabel('Permission').selectOption('read');
      await page.getByRole('button', { name: 'Create key' }).click();
      const value = page.getByLabel('Key value');
      await value.waitFor();
      const key = await value.inputValue();
      t.match(key, /^dbm_/, 'the value is shown');
      await t.resolveMatch(page.locator('#api-key-created').textContent(), 'shown this once');
      await page.getByRole('button', { name: 'Copy' }).click();
      await said(page.locator('#api-key-copied'), /Copied\.|select the value/);
      const row = page.locator('#api-key-rows tr');
      await row.first().waitFor();
      await t.resolveMatch(row.locator('th').textContent(), '<img src=x onerror=alert(1)>', 'the name is shown as text');
      t.equal(await page.locator('#api-key-rows img').count(), 0, 'attack: the name makes no element');
      await t.resolveMatch(row.textContent(), /read.*databases, metrics.*never.*never used/s);
      await audit('api key created');

      t.equal((await server.request('GET', '/v1/databases', { key })).status, 200, 'the shown value is a working key');
      await t.resolveMatch(row.textContent(), /read.*databases/s);
      await page.getByRole('button', { name: 'Revoke <img src=x onerror=alert(1)>' }).focus();
      await page.keyboard.press('Enter');
      await t.resolveMatch(page.evaluate(() => document.activeElement?.textContent), 'Cancel', 'the confirmation opens on Cancel');
      await page.keyboard.press('Escape');
      t.equal((await server.request('GET', '/v1/databases', { key })).status, 200, 'Escape revokes nothing');
      await page.getByRole('button', { name: 'Revoke <img src=x onerror=alert(1)>' }).click();
      await t.resolveMatch(page.locator('#api-key-revoke').textContent(), 'stops working at once');
      await audit('revoke confirmation');
      await page.getByRole('button', { name: 'Revoke', exact: true }).click();
      await said(page.locator('#api-keys-status'), 'No keys yet.');
      t.equal(await row.count(), 0, 'the revoked key is gone from the list');
      t.equal((await server.request('GET', '/v1/databases', { key })).status, 401, 'the revoked key is refused');
      await page.setViewportSize({ width: 360, height: 740 });
      await page.emulateMedia({ colorScheme: 'dark' });
      await audit('api keys 360 px dark');
    });
  });

  await t.test('sessions: this one marked, another signed out, then everywhere else; the profile, and a password that needs the current one', async (t) => {
    // Someone with two other browsers signed in.
    const { userId, email } = await createPasswordUser(server.services, tenant.orgId, 'viewer', server.clock.now);
    await signIn(server, email);
    await signIn(server, email);
    await browser.withPage(t, async ({ page, audit }) => {
      await signInThroughPage(page, server.url, email, testPassword, '/settings/sessions');
      const rows = page.locator('#session-rows tr');
      await rows.nth(2).waitFor();
      t.equal(await rows.count(), 3);
      await said(page.locator('#sessions-status'), 'This session and 2 others.');
      await t.resolveMatch(rows.filter({ hasText: 'This session' }).textContent(), /Chrom/);
      await audit('sessions');
      await page.getByRole('button', { name: /^Sign out the session of/ }).first().click();
      await said(page.locator('#sessions-status'), 'This session and 1 other.');
      await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
      await said(page.locator('#sessions-status'), 'This is your only session.');
      t.equal(server.services.accounts.sessions.list(tenant.orgId, userId, new Date()).length, 1, 'the API holds this session only');

      await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Profile and password' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Vera Viewer');
      await page.getByRole('button', { name: 'Save name' }).click();
      await said(page.locator('#profile-status'), 'Saved.');
      t.equal(server.services.accounts.profile.get(tenant.orgId, userId).name, 'Vera Viewer');
      const newPassword = 'quartz-lantern-meadow-42';
      await page.getByLabel('Current password').fill('not-my-password-at-all');
      await page.getByLabel('New password').fill(newPassword);
      await page.getByRole('button', { name: 'Change password' }).click();
      await said(page.locator('#password-status'), /current password/i);
      await t.rejects(signIn(server, email, newPassword), 'attack: a wrong current password changes nothing');
      await page.getByLabel('Current password').fill(testPassword);
      await page.getByRole('button', { name: 'Change password' }).click();
      await said(page.locator('#password-status'), 'Password changed; your other sessions are signed out.');
      await t.resolves(signIn(server, email, newPassword), 'the new password signs in');
      await audit('profile');
      // The refused password change is a 400 the browser logs.
    }, { expectedConsoleErrors: [/status of 400/] });
  });

  await t.test("users and roles: an owner invites, changes a role, is refused the last owner's, disables and removes", async (t) => {
    const { userId: ownerId, email: ownerEmail } = await createPasswordUser(server.services, tenant.orgId, 'owner', server.clock.now);
    server.services.identity.createUser({ orgId: tenant.orgId, email: 'mallory@example.test', name: '<img src=x onerror=alert(1)>', role: 'viewer' }, new Date());
    await browser.withPage(t, async ({ page, audit }) => {
      await signInThroughPage(page, server.url, ownerEmail, testPassword, '/settings/users');
      await said(page.locator('#users-status'), /^\d+ users\.$/);
      const row = (who: string) => page.locator('#user-rows tr').filter({ hasText: who });
      await t.resolveMatch(row('mallory@example.test').locator('th').textContent(), '<img src=x onerror=alert(1)>', 'the name is shown as text');
      t.equal(await page.locator('#user-rows img').count(), 0, 'attack: the name makes no element');

      await page.getByLabel('Email').fill('newcomer@example.test');
      await page.getByLabel('Role', { exact: true }).selectOption('admin');
      await page.getByRole('button', { name: 'Invite' }).click();
      await page.locator('#invitation-created').waitFor();
      const link = new URL(await page.getByLabel('Link').inputValue());
      t.match(link.pathname, /^\/invitations\/./, 'the one-time link is shown');
      t.equal((await fetch(`${server.url}${link.pathname}`, { headers: { accept: 'text/html' } })).status, 200, 'and it opens the invitation');
      await row('newcomer@example.test').waitFor();
      await t.resolveMatch(page.getByLabel('Role of newcomer@example.test').inputValue(), 'admin');
      await t.resolveMatch(row('newcomer@example.test').locator('td').nth(2).textContent(), 'invited');
      await audit('users invited');

      // The status reads "N users." before the change as after it: wait for the change's own answer.
      const changed = page.waitForResponse((response) => response.request().method() === 'PATCH' && response.url().includes('/v1/users/'));
      await page.getByLabel('Role of mallory@example.test').selectOption('member');
      t.equal((await changed).status(), 200);
      t.equal(server.services.identity.requireUser(tenant.orgId, 'mallory@example.test').role, 'member', 'the role is changed through the API');

      await page.getByLabel(`Role of ${ownerEmail}`).selectOption('admin');
      await said(page.locator('#users-status'), /owner/i);
      t.equal(server.services.accounts.profile.get(tenant.orgId, ownerId).role, 'owner', 'attack: the last owner keeps the role');
      await t.resolveMatch(page.getByLabel(`Role of ${ownerEmail}`).inputValue(), 'owner', 'and the page shows what the API holds');

      await page.getByRole('button', { name: 'Disable mallory@example.test' }).click();
      await said(row('mallory@example.test'), 'disabled');
      await page.getByRole('button', { name: 'Remove mallory@example.test' }).click();
      await audit('remove confirmation');
      await page.getByRole('button', { name: 'Remove', exact: true }).click();
      await page.waitForFunction(() => !document.querySelector('#user-rows')?.textContent?.includes('mallory@example.test'));
      t.notOk(
        server.services.identity.listUsers(tenant.orgId).some((user) => user.email === 'mallory@example.test'),
        'removed through the API',
      );
      // The refused role change is a 409 the browser logs.
    }, { expectedConsoleErrors: [/status of 409/] });
  });

  await t.test('an OAuth application registered in the page is what the API holds; a user revokes their authorization; the admin deletes it', async (t) => {
    const attack = '<img src=x onerror=alert(1)>';
    const { email: ownerEmail } = await createPasswordUser(server.services, tenant.orgId, 'owner', server.clock.now);
    const adminKey = createUserKey(server.services, tenant.orgId, server.clock.now, 'admin', 'read', ['api_keys']).key;
    const registered = async () => (await server.request('GET', '/v1/oauth/applications', { key: adminKey })).body.data as { name: string; client_id: string; confidential: boolean; redirect_uris: string[]; scopes: string[] }[];
    let clientId = '';
    await browser.withPage(t, async ({ page, audit }) => {
      await signInThroughPage(page, server.url, ownerEmail, testPassword, '/settings/security');
      await page.getByRole('link', { name: 'OAuth applications' }).first().click();
      await said(page.locator('#oauth-apps-status'), 'No applications yet.');
      await page.getByLabel(/^Name/).fill(attack);
      await page.getByLabel(/^Redirect URIs/).fill('https://reports.example.test/callback\nhttp://127.0.0.1:8080/callback');
      t.equal(await page.locator('input[name=scopes]:checked').count(), 6, 'the default scopes are offered checked');
      await page.locator('input[name=scopes][value=webhooks]').uncheck();
      await page.getByRole('button', { name: 'Register' }).click();
      const secret = page.getByLabel('Client secret', { exact: true });
      await secret.waitFor();
      t.match(await secret.inputValue(), /^dbm_ocs_/, 'the client secret is shown');
      await t.resolveMatch(page.locator('#oauth-app-created').textContent(), 'shown this once');
      const row = page.locator('#oauth-app-rows tr');
      await row.first().waitFor();
      await t.resolveMatch(row.locator('th').textContent(), attack, 'the name is shown as text');
      t.equal(await page.locator('#oauth-app-rows img').count(), 0, 'attack: the name makes no element');
      const [app] = await registered();
      t.match(app, { name: attack, confidential: true, redirect_uris: ['https://reports.example.test/callback', 'http://127.0.0.1:8080/callback'] }, 'the API holds what the page registered');
      t.same(app!.scopes, ['databases', 'metrics', 'queries', 'alerts', 'optimizations'], 'with the scopes chosen on the page');
      clientId = app!.client_id;
      await t.resolveMatch(row.textContent(), new RegExp(`${clientId}confidential`), 'client id and type listed');
      await audit('oauth application registered');
      await page.setViewportSize({ width: 360, height: 740 });
      await page.emulateMedia({ colorScheme: 'dark' });
      await audit('oauth applications 360 px dark');
    });

    const user = await OAuthBrowser.signIn(server, tenant.orgId, 'member');
    await user.code({ response_type: 'code', client_id: clientId, redirect_uri: 'https://reports.example.test/callback', state: 's', code_challenge: newPkce().challenge, code_challenge_method: 'S256' });
    await browser.withPage(t, async ({ page, audit }) => {
      await signInThroughPage(page, server.url, user.email, testPassword, '/settings/authorized-applications');
      const row = page.locator('#authorization-rows tr');
      await row.first().waitFor();
      await t.resolveMatch(row.locator('th').textContent(), attack, "the user's grant, its name as text");
      await t.resolveMatch(row.textContent(), 'Acme Operations');
      await audit('authorized applications');
      await page.getByRole('button', { name: `Revoke ${attack}` }).click();
      await page.getByRole('button', { name: 'Revoke', exact: true }).click();
      await said(page.locator('#authorizations-status'), 'You have authorized no application.');
    });

    await browser.withPage(t, async ({ page }) => {
      await signInThroughPage(page, server.url, ownerEmail, testPassword, '/settings/oauth-applications');
      await page.getByRole('button', { name: `Delete ${attack}` }).click();
      await t.resolveMatch(page.locator('#oauth-app-delete').textContent(), clientId, 'the confirmation names the client');
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await said(page.locator('#oauth-apps-status'), 'No applications yet.');
      t.same(await registered(), [], 'deleted through the page, gone from the API');
    });
  });

  await t.test('security settings are saved through the API and the change is found in the audit log', async (t) => {
    const { email: adminEmail } = await createPasswordUser(server.services, tenant.orgId, 'admin', server.clock.now);
    await browser.withPage(
      t,
      async ({ page, audit }) => {
        await signInThroughPage(page, server.url, adminEmail, testPassword, '/settings/security');
        const idle = page.getByLabel('End a session idle for (minutes)');
        await page.locator('#security-form:not([aria-busy])').waitFor();
        await t.resolveMatch(idle.inputValue(), '30', 'the saved value is shown');
        await idle.fill('45');
        await page.getByLabel('Require every user to use a second factor').check();
        await page.getByLabel('Days a user has to set one up (grace period)').fill('3');
        await page.getByRole('button', { name: 'Save' }).click();
        await said(page.locator('#security-status'), 'Saved.');
        t.match(server.services.accounts.organizationSettings.settings(tenant.orgId), { session_idle_timeout_minutes: 45, require_two_factor: true, two_factor_grace_period_days: 3 }, 'the API holds the change');
        await page.getByLabel(/^Addresses and CIDR ranges/).fill('10.0.0.0/8');
        await page.getByRole('button', { name: 'Save' }).click();
        await said(page.locator('#security-status'), /enterprise/i);
        await audit('security, allowlist refused below enterprise');

        await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Audit log' }).click();
        await said(page.locator('#audit-status'), /^Entries 1 to \d+ of \d+/);
        await page.getByLabel('Action').selectOption('organization.settings_updated');
        await page.getByRole('button', { name: 'Show' }).click();
        await said(page.locator('#audit-status'), 'Entries 1 to 1 of 1, newest first.');
        await t.resolveMatch(page.locator('#audit-rows').textContent(), new RegExp(`organization\\.settings_updated.*${adminEmail.replace('.', '\\.')}`));
        await page.getByLabel('Until').fill('2020-01-01T00:00');
        await page.getByRole('button', { name: 'Show' }).click();
        await said(page.locator('#audit-status'), 'No entries match.');
        await audit('audit log filtered');
      },
      { expectedConsoleErrors: [/status of 403/] },
    );
  });
});

/** Waits until the element says `text` (the browser code writes it after an API call). */
async function said(locator: Locator, text: string | RegExp): Promise<void> {
  await locator.filter({ hasText: text }).waitFor({ timeout: 5_000 });
}
