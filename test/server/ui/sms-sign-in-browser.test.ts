import t from 'tap';
import { BrowserUnderTest } from '../../helpers/browser.js';
import { startFakeTwilio } from '../../helpers/fake-twilio.js';
import { createPasswordUser, signIn, testPassword } from '../../helpers/sign-in.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';

t.test('signing in with a code texted on request, in chromium', async (t) => {
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
  const session = await signIn(server, email);
  const phone = '+14155550123';
  await server.request('POST', '/v1/user/two-factor/sms', { headers: session.headers(), body: { phone } });
  const enrolled = await server.request('POST', '/v1/user/two-factor/sms/verify', { headers: session.headers(), body: { code: twilio.lastCode(phone) } });
  t.equal(enrolled.status, 200, enrolled.text);

  await browser.withPage(
    t,
    async ({ page, audit }) => {
      await page.goto(`${server.url}/login`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(testPassword);
      await Promise.all([page.waitForURL(`${server.url}/login/two-factor`), page.getByRole('button', { name: 'Sign in' }).click()]);
      const sentBefore = twilio.messages.length;
      await page.getByText('Text me a code instead').click();
      await audit('sms offered');
      await page.getByRole('button', { name: 'Send me a code', exact: true }).click();
      await t.resolveMatch(page.getByRole('status').textContent(), 'ending in 23');
      t.equal(twilio.messages.length, sentBefore + 1, 'one message sent');
      await audit('sms sent');
      await page.getByLabel('Code from the text message').fill('000000' === twilio.lastCode(phone) ? '111111' : '000000');
      await page.getByRole('button', { name: 'Verify text code', exact: true }).click();
      await t.resolveMatch(page.getByRole('alert').textContent(), 'That code is wrong or was already used.');
      await page.getByLabel('Code from the text message').fill(twilio.lastCode(phone));
      await Promise.all([page.waitForURL(`${server.url}/`), page.getByRole('button', { name: 'Verify text code', exact: true }).click()]);
      await t.resolveMatch(page.getByRole('heading', { level: 1 }).textContent(), 'Overview');
    },
    { expectedConsoleErrors: [/status of 401/] },
  );
});
