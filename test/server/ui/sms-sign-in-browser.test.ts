import t from 'tap';
import { BrowserUnderTest } from '../../helpers/browser.js';
import { startFakeTwilio } from '../../helpers/fake-twilio.js';
import { createPasswordUser, testPassword } from '../../helpers/sign-in.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';

t.test('sms in chromium: a phone set up on /account/two-factor, a sign-in with a texted code, the phone removed', async (t) => {
  t.setTimeout(120_000);
  const twilio = await startFakeTwilio();
  t.teardown(twilio.close);
  const server = await startTestServer({
    now: new Date('2026-03-02T10:00:10Z'),
    sms: twilio.settings(),
  });
  t.teardown(server.close);
  const browser = await BrowserUnderTest.launch(server.url, import.meta.url);
  t.teardown(() => browser.close());
  const tenant = createTenant(server.services, server.clock.now);
  const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
  const phone = '+14155550123';
  const wrongCode = (right: string) => (right === '000000' ? '111111' : '000000');

  await browser.withPage(
    t,
    async ({ page, audit }) => {
      const signInWithPassword = async (landing: string) => {
        await page.goto(`${server.url}/login`);
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password').fill(testPassword);
        await Promise.all([page.waitForURL(`${server.url}${landing}`), page.getByRole('button', { name: 'Sign in' }).click()]);
      };
      await signInWithPassword('/');
      await page.goto(`${server.url}/account/two-factor`);
      await t.resolveMatch(page.locator('main').textContent(), /SIM swap.*SP 800-63B.*authenticator app first/s, 'the risks of SMS, and the app first');
      await audit('sms offered in setup');
      await page.getByLabel('Phone number, with country code').fill('415 555 0123');
      await page.getByRole('button', { name: 'Text me a code' }).click();
      await t.resolveMatch(page.getByRole('alert').textContent(), 'international form');
      t.equal(await page.getByLabel('Phone number, with country code').inputValue(), '415 555 0123', 'the number typed is kept');
      await page.getByLabel('Phone number, with country code').fill('+1 (415) 555-0123');
      await page.getByRole('button', { name: 'Text me a code' }).click();
      await t.resolveMatch(page.getByRole('status').textContent(), 'ending in 23');
      t.equal(twilio.messages.at(-1)?.to, phone, 'texted to the number in E.164');
      await page.getByLabel('Code from the text message').fill(wrongCode(twilio.lastCode(phone)));
      await page.getByRole('button', { name: 'Turn on text message codes' }).click();
      await t.resolveMatch(page.getByRole('alert').textContent(), 'not the one we sent');
      await audit('sms code refused');
      await page.getByLabel('Code from the text message').fill(twilio.lastCode(phone));
      await page.getByRole('button', { name: 'Turn on text message codes' }).click();
      await t.resolveMatch(page.getByRole('heading', { level: 1 }).textContent(), 'Your recovery codes', 'the first factor comes with recovery codes');
      t.equal(await page.locator('#recovery-codes li').count(), 10);
      await Promise.all([page.waitForURL(`${server.url}/`), page.getByRole('link', { name: 'I have saved them, continue' }).click()]);

      await page.goto(`${server.url}/logout`);
      await Promise.all([page.waitForURL(/\/login\?signed_out=1$/), page.locator('main').getByRole('button', { name: 'Sign out' }).click()]);
      await signInWithPassword('/login/two-factor');
      t.equal(await page.getByLabel('Code from your authenticator app').count(), 0, 'no app: its code is not asked for');
      const sentBefore = twilio.messages.length;
      await audit('sms offered at sign-in');
      await page.getByRole('button', { name: 'Send me a code', exact: true }).click();
      await t.resolveMatch(page.getByRole('status').textContent(), 'ending in 23');
      t.equal(twilio.messages.length, sentBefore + 1, 'one message sent');
      await audit('sms sent');
      await page.getByLabel('Code from the text message').fill(wrongCode(twilio.lastCode(phone)));
      await page.getByRole('button', { name: 'Verify text code', exact: true }).click();
      await t.resolveMatch(page.getByRole('alert').textContent(), 'That code is wrong or was already used.');
      await page.getByLabel('Code from the text message').fill(twilio.lastCode(phone));
      await Promise.all([page.waitForURL(`${server.url}/`), page.getByRole('button', { name: 'Verify text code', exact: true }).click()]);
      await t.resolveMatch(page.getByRole('heading', { level: 1 }).textContent(), 'Overview');

      await page.goto(`${server.url}/account/two-factor`);
      await t.resolveMatch(page.locator('main').textContent(), 'Codes are texted to your number ending in 23.');
      await page.getByLabel('Your password').fill('not-my-password-at-all');
      await page.getByRole('button', { name: 'Remove the phone' }).click();
      await t.resolveMatch(page.getByRole('alert').textContent(), 'The password is wrong.');
      await page.getByLabel('Your password').fill(testPassword);
      await Promise.all([page.waitForURL(`${server.url}/account/two-factor?done=sms_removed`), page.getByRole('button', { name: 'Remove the phone' }).click()]);
      await t.resolveMatch(page.getByRole('status').textContent(), 'The phone was removed');
      t.equal(await page.getByLabel('Phone number, with country code').count(), 1, 'a phone can be added again');
    },
    { expectedConsoleErrors: [/status of 400/, /status of 401/, /status of 403/] },
  );
});
