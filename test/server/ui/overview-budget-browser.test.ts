import type { Request } from 'playwright-core';
import t from 'tap';
import { BrowserUnderTest, signInThroughPage } from '../../helpers/browser.js';
import { createPasswordUser, testPassword } from '../../helpers/sign-in.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';
import { waitUntil } from '../../helpers/wait-until.js';

const startedAt = new Date('2026-11-24T09:00:00Z');

/**
 * The overview of a free organization (100 requests an hour for the user, every tab together) with
 * three databases collected every 10 s: refreshing at their interval would cost 2 requests every
 * 10 s, 720 an hour. The browser's clock is the server's, run forward by the test.
 */
t.test('overview in chromium: refreshes spaced out to last the hour’s request budget', async (t) => {
  const server = await startTestServer({ now: startedAt });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now, 'free', 'Acme Operations');
  const { email } = await createPasswordUser(server.services, tenant.orgId, 'viewer', server.clock.now);
  for (const name of ['orders', 'billing', 'shop']) {
    await server.request('POST', '/v1/databases', {
      key: tenant.key,
      body: { name, type: 'postgresql', connection: { host: '127.0.0.1', port: 1, database: name, username: 'dbmon' }, monitoring: { interval_seconds: 10 } },
    });
  }
  const browser = await BrowserUnderTest.launch(server.url, import.meta.url);
  t.teardown(() => browser.close());

  await browser.withPage(t, async ({ page, audit }) => {
    await page.clock.install({ time: startedAt });
    const apiCalls: string[] = [];
    let inFlight = 0;
    const isApi = (request: Request) => new URL(request.url()).pathname.startsWith('/v1/');
    page.on('request', (request: Request) => {
      if (!isApi(request)) return;
      apiCalls.push(new URL(request.url()).pathname);
      inFlight++;
    });
    const ended = (request: Request) => {
      if (isApi(request)) inFlight--;
    };
    page.on('requestfinished', ended);
    page.on('requestfailed', ended);
    await signInThroughPage(page, server.url, email, testPassword);
    await page.locator('#refresh-status > time').waitFor();
    t.same(apiCalls, ['/v1/databases', '/v1/alerts'], 'a refresh costs the list and the active alerts (no history for databases without a sample)');

    const note = page.locator('#refresh-paced');
    await t.resolveMatch(note.textContent(), /^ Next refresh at .+, spaced out so that this hour’s API request budget lasts\.$/);
    const updated = Date.parse((await page.locator('#refresh-status > time').getAttribute('datetime'))!);
    const next = Date.parse((await note.locator('time').getAttribute('datetime'))!);
    // 98 requests left until 10:00, 10 of them kept for what the user does: 2 of the 88 every 82 s or so.
    const expected = ((Date.parse('2026-11-24T10:00:00Z') - updated) * 2) / 88;
    t.ok(Math.abs(next - updated - expected) < 2000, `next refresh ${((next - updated) / 1000).toFixed(1)} s after the last, ${(expected / 1000).toFixed(1)} s expected`);
    await audit('overview paced');

    await page.clock.runFor(next - updated - 5000);
    t.equal(apiCalls.length, 2, 'no request at the databases’ 10 s interval');
    await Promise.all([page.waitForRequest((request) => new URL(request.url()).pathname === '/v1/databases'), page.clock.runFor(10_000)]);
    await page.waitForFunction((first) => document.querySelector('#refresh-status > time')?.getAttribute('datetime') !== first, new Date(updated).toISOString());
    t.same(apiCalls, ['/v1/databases', '/v1/alerts', '/v1/databases', '/v1/alerts'], 'then the next refresh, when it was said to come');

    // The rest of the hour, 10 s at a time, each step's refresh answered before the next, the server's clock following the browser's.
    const refused: number[] = [];
    page.on('response', (response) => {
      if (response.status() === 429) refused.push(response.status());
    });
    const step = 10_000;
    const runTo = async (end: number) => {
      for (let at = (await page.evaluate(() => Date.now())) + step; at <= end; at += step) {
        await page.clock.runFor(step);
        server.clock.now = new Date(at);
        await new Promise((resolve) => setTimeout(resolve, 20));
        await waitUntil('the refresh answered', async () => inFlight === 0, 5000);
      }
    };
    await runTo(Date.parse('2026-11-24T09:59:50Z'));
    const inTheHour = apiCalls.length;
    t.ok(inTheHour <= 90 && inTheHour >= 60, `${inTheHour} requests in the hour (the 10 s interval would make 720), ten of the 100 kept for the user`);
    t.same(refused, [], 'never refused with 429');
    await runTo(Date.parse('2026-11-24T10:02:00Z'));
    t.ok(apiCalls.length > inTheHour, 'the new hour’s budget is spent on refreshes again');
  });

  await browser.withPage(t, async ({ page, audit }) => {
    // A new hour for another user of another free organization: a database page at 10 s, 3 requests a refresh.
    server.clock.now = new Date('2026-11-24T11:00:00Z');
    await page.clock.install({ time: server.clock.now });
    const other = createTenant(server.services, server.clock.now, 'free');
    const user = await createPasswordUser(server.services, other.orgId, 'viewer', server.clock.now);
    const created = await server.request('POST', '/v1/databases', {
      key: other.key,
      body: { name: 'orders', type: 'postgresql', connection: { host: '127.0.0.1', port: 1, database: 'orders', username: 'dbmon' }, monitoring: { interval_seconds: 10 } },
    });
    await signInThroughPage(page, server.url, user.email, testPassword, `/databases/${created.body.id}`);
    const paced = page.locator('#refresh-paced');
    await paced.waitFor();
    await t.resolveMatch(paced.textContent(), /^Next refresh at .+, spaced out so that this hour’s API request budget lasts\.$/, 'the database page says its refreshes are spaced out');
    await audit('database page paced');
  });
});
