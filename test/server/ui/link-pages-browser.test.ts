import t from 'tap';
import type { Page } from 'playwright-core';
import { BrowserUnderTest } from '../../helpers/browser.js';
import { createPasswordUser, signIn } from '../../helpers/sign-in.js';
import { startSmtpReceiver } from '../../helpers/smtp-receiver.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';
import { waitUntil } from '../../helpers/wait-until.js';

const publicUrl = 'http://dbmon.example.test';

/** Every Referer the page's requests carried, from when this is called. */
function referers(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (request) => {
    const referer = request.headers().referer;
    if (referer !== undefined) seen.push(referer);
  });
  return seen;
}

t.test('invitation and password-reset pages in chromium, links by mail', async (t) => {
  const receiver = await startSmtpReceiver();
  t.teardown(receiver.close);
  const server = await startTestServer({ publicUrl, email: { smtpUrl: receiver.url, from: 'dbmon <dbmon@example.test>' } });
  t.teardown(server.close);
  const browser = await BrowserUnderTest.launch(server.url, import.meta.url);
  t.teardown(() => browser.close());
  const tenant = createTenant(server.services, server.clock.now, 'pro', 'Acme Operations');
  const owner = await createPasswordUser(server.services, tenant.orgId, 'owner', server.clock.now);
  /** The link of the newest mail, on the server under test (the mail names `server.public_url`). */
  const mailedLink = async (count: number) => {
    await waitUntil('the mail', async () => receiver.received.length === count);
    const url = /http:\/\/dbmon\.example\.test(\/\S+)/.exec(receiver.received[count - 1]!.text)?.[1];
    t.ok(url, 'the mail holds a link');
    return `${server.url}${url}`;
  };

  await t.test('accepting a mailed invitation sets name and password and signs in', async (t) => {
    const session = await signIn(server, owner.email);
    const created = await server.request('POST', '/v1/users', { headers: session.headers(), body: { email: 'nora@example.test', role: 'member' } });
    t.equal(created.status, 201);
    const link = await mailedLink(1);
    await browser.withPage(t, async ({ page, audit }) => {
      const sentReferers = referers(page);
      await page.goto(link);
      await t.resolveMatch(page.getByRole('heading', { level: 1 }).textContent(), 'Join Acme Operations on dbmon');
      await t.resolveMatch(page.locator('main').textContent(), 'nora@example.test');
      await audit('form');
      t.same(sentReferers, [], 'the stylesheet and icon were fetched without a Referer');
      await page.getByLabel('Your name').fill('Nora Batty');
      await page.getByLabel('Password').fill('short');
      // The browser's own check (minlength) keeps a short password from being sent at all.
      await page.getByRole('button', { name: 'Join and sign in' }).click();
      t.equal(new URL(page.url()).pathname, new URL(link).pathname, 'still on the form');
      await page.getByLabel('Password').fill('password1234');
      await Promise.all([page.waitForResponse((response) => response.request().method() === 'POST'), page.getByRole('button', { name: 'Join and sign in' }).click()]);
      await t.resolveMatch(page.getByRole('alert').textContent(), 'too common');
      t.equal(await page.getByLabel('Your name').inputValue(), 'Nora Batty', 'the name is kept');
      await audit('refused');
      await page.getByLabel('Password').fill('a-fresh-and-long-password');
      await Promise.all([page.waitForURL(`${server.url}/`), page.getByRole('button', { name: 'Join and sign in' }).click()]);
      await t.resolveMatch(page.getByRole('heading', { level: 1 }).textContent(), 'Overview');
      await t.resolveMatch(page.locator('.account').textContent(), 'nora@example.test');
      t.ok((await page.context().cookies()).some((cookie) => cookie.name === 'dbmon_session'), 'signed in');
      await page.goto(link);
      // The last page, the error page, is checked (screenshot, axe) as every page's end is.
      await t.resolveMatch(page.getByRole('heading', { level: 1 }).textContent(), 'This link does not work');
    }, { expectedConsoleErrors: [/status of 400/, /status of 404/] });
  });

  await t.test('forgot password: asked from the sign-in form, reset by the mailed link, signed in', async (t) => {
    const user = await createPasswordUser(server.services, tenant.orgId, 'viewer', server.clock.now);
    const before = receiver.received.length;
    await browser.withPage(t, async ({ page, audit }) => {
      await page.goto(`${server.url}/login`);
      await Promise.all([page.waitForURL(`${server.url}/password-reset`), page.getByRole('link', { name: 'Forgot your password?' }).click()]);
      await audit('request');
      await page.getByLabel('Email').fill(user.email);
      await page.getByRole('button', { name: 'Send the link' }).click();
      await t.resolveMatch(page.getByRole('status').textContent(), 'If an account uses this email');
      const link = await mailedLink(before + 1);
      const sentReferers = referers(page);
      await page.goto(link);
      await t.resolveMatch(page.locator('main').textContent(), user.email);
      await audit('reset');
      await page.getByLabel('New password', { exact: true }).fill('another-fresh-long-password');
      await Promise.all([page.waitForURL(`${server.url}/`), page.getByRole('button', { name: 'Save and sign in' }).click()]);
      await t.resolveMatch(page.getByRole('heading', { level: 1 }).textContent(), 'Overview');
      t.notOk(sentReferers.some((referer) => referer.includes('/password-reset/')), 'no request carried the link as its Referer');
    });
    await signIn(server, user.email, 'another-fresh-long-password');
  });
});
