import type { Request } from 'playwright-core';
import t from 'tap';
import { BrowserUnderTest, signInThroughPage } from '../../helpers/browser.js';
import { createPasswordUser, testPassword } from '../../helpers/sign-in.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';

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
    page.on('request', (request: Request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith('/v1/')) apiCalls.push(path);
    });
    await signInThroughPage(page, server.url, email, testPassword);
    await page.locator('#refresh-status > time').waitFor();
    t.same(apiCalls, ['/v1/databases', '/v1/alerts'], 'a refresh costs the list and the active alerts (no history for databases without a sample)');

    const note = page.locator('#refresh-paced');
    await t.resolveMatch(note.textContent(), /^ Next at .+, spaced out so that this hour’s API request budget lasts\.$/);
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

    // The rest of the hour, a minute at a time, the server's clock following the browser's.
    const refused: number[] = [];
    page.on('response', (response) => {
      if (response.status() === 429) refused.push(response.status());
    });
    const minute = 60_000;
    for (let at = startedAt.getTime() + 2 * minute; at <= Date.parse('2026-11-24T10:00:00Z'); at += minute) {
      await page.clock.runFor(at - (await page.evaluate(() => Date.now())));
      server.clock.now = new Date(at);
    }
    const inTheHour = apiCalls.length;
    t.ok(inTheHour <= 90 && inTheHour >= 70, `${inTheHour} requests in the hour (the 10 s interval would make 720), ten of the 100 kept for the user`);
    t.same(refused, [], 'never refused with 429');
    await page.clock.runFor(2 * minute);
    t.ok(apiCalls.length > inTheHour, 'the new hour’s budget is spent on refreshes again');
  });
});
