import t from 'tap';
import { BrowserUnderTest, signInThroughPage } from '../../helpers/browser.js';
import { startTestEmbeddedAgent } from '../../helpers/embedded-agent-under-test.js';
import { createPasswordUser, testPassword } from '../../helpers/sign-in.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';
import { createThrowawayMysqlDatabase } from '../../helpers/throwaway-mysql-database.js';
import { createThrowawayPostgresDatabase } from '../../helpers/throwaway-postgres-database.js';
import { waitUntil } from '../../helpers/wait-until.js';

/**
 * The dashboard in chromium against a server whose embedded agent monitors a real PostgreSQL and a real
 * MariaDB under a little load, beside a database it cannot reach and a paused one: what the pages show is
 * what the API holds.
 */
t.test('dashboard in chromium', async (t) => {
  t.setTimeout(120_000);
  const database = await createThrowawayPostgresDatabase();
  t.teardown(() => database.drop());
  const mariadb = await createThrowawayMysqlDatabase();
  t.teardown(() => mariadb.drop());
  const server = await startTestServer();
  t.teardown(server.close);
  // The embedded agent samples on real time: the server reads the same clock.
  Object.defineProperty(server.clock, 'now', { get: () => new Date() });
  const tenant = createTenant(server.services, server.clock.now, 'pro', 'Acme Operations');
  const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
  const register = async (body: object) => (await server.request('POST', '/v1/databases', { key: tenant.key, body })).body.id as string;
  const ordersId = await register({
    name: 'orders',
    type: 'postgresql',
    connection: { host: database.settings.host, port: database.settings.port, database: database.name, username: database.settings.username },
    monitoring: { interval_seconds: 10 },
  });
  const shopId = await register({
    name: 'shop',
    type: 'mariadb',
    connection: { host: mariadb.settings.host, port: mariadb.settings.port, database: mariadb.name, username: mariadb.settings.username, password: '' },
    monitoring: { interval_seconds: 10 },
  });
  await register({ name: 'billing-replica', type: 'postgresql', connection: { host: '127.0.0.1', port: 1, database: 'billing', username: 'dbmon' }, monitoring: { interval_seconds: 10 } });
  await register({ name: 'legacy-shop', type: 'mariadb', connection: { host: '127.0.0.1', database: 'shop', username: 'dbmon' }, monitoring: { enabled: false } });
  await server.request('POST', '/v1/alerts/rules', {
    key: tenant.key,
    body: { name: 'Anyone connected', database_id: ordersId, metric: 'connections.total', operator: '>=', threshold: 1, severity: 'warning' },
  });

  const browser = await BrowserUnderTest.launch(server.url, import.meta.url);
  t.teardown(() => browser.close());
  startTestEmbeddedAgent(t, server);
  const client = await database.connect();
  await client.query('CREATE TABLE orders (id serial PRIMARY KEY, total numeric NOT NULL)');
  const shop = await mariadb.connect();
  await shop.query('CREATE TABLE carts (id int AUTO_INCREMENT PRIMARY KEY, total decimal(10, 2) NOT NULL)');
  const history = async (id: string) => (await server.request('GET', `/v1/databases/${id}/metrics/history?range=1h&resolution=raw`, { key: tenant.key })).body.data as { metrics: Record<string, number | null> }[];
  const hasRate = async (id: string, metric: string) => (await history(id)).some((point) => (point.metrics[metric] ?? 0) > 0);
  // A few hundred statements on each engine while the agent takes its first two samples (rates need two).
  let queries = 0;
  let shopQueries = 0;
  await waitUntil(
    'two samples of orders and of shop with a transaction rate',
    async () => {
      for (let i = 0; i < 20; i++, queries++, shopQueries++) {
        await client.query(i % 2 === 0 ? 'INSERT INTO orders (total) VALUES ($1)' : 'SELECT count(*), sum(total) FROM orders', i % 2 === 0 ? [i] : []);
        // MariaDB counts no autocommitted transaction per schema: the agent sees the explicit COMMITs.
        if (i % 2 === 0) {
          await shop.query('START TRANSACTION');
          await shop.query('INSERT INTO carts (total) VALUES (?)', [i]);
          await shop.query('COMMIT');
        } else {
          await shop.query('SELECT count(*), sum(total) FROM carts');
        }
      }
      return (await hasRate(ordersId, 'throughput.transactions_per_second')) && (await hasRate(shopId, 'throughput.transactions_per_second'));
    },
    30_000,
  );
  t.ok(queries >= 200 && shopQueries >= 200, `${queries} statements run on PostgreSQL, ${shopQueries} on MariaDB`);

  await t.test('the overview shows every database with real figures, the active alert on top, filters, keyboard reach', async (t) => {
    await browser.withPage(t, async ({ page, audit }) => {
      await signInThroughPage(page, server.url, email, testPassword);
      t.match(await page.locator('.masthead').textContent(), 'Acme Operations');
      const rows = page.locator('#database-rows tr');
      await rows.first().waitFor();
      const firstDrawn = await page.locator('#refresh-status > time').getAttribute('datetime');
      await page.evaluate(() => document.body.setAttribute('data-loaded-once', ''));
      t.equal(await rows.count(), 4);
      const row = (name: string) => rows.filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${name}`) }) });
      const orders = row('orders');
      await t.resolveMatch(orders.locator('.status').textContent(), /^(healthy|warning)$/);
      await t.resolveMatch(orders.locator('td').nth(1).textContent(), /^postgresql15\./, 'engine and version');
      t.equal(await orders.locator('svg.sparkline').count(), 2, 'sparklines of connections and transactions');
      await t.resolveMatch(orders.locator('td').nth(2).textContent(), /\d+ of \d+$/, 'connections of max');
      await t.resolveMatch(orders.locator('td').nth(3).textContent(), /\d\/s$/, 'transactions per second with unit');
      await t.resolveMatch(orders.locator('td').nth(4).textContent(), /(ms|µs|s)$|^no statements measured$/, 'p95 with unit, or said in words');
      await t.resolveMatch(orders.locator('td').nth(6).textContent(), /^\d+ s ago/);
      const shopRow = row('shop');
      await t.resolveMatch(shopRow.locator('.status').textContent(), /^(healthy|warning)$/);
      await t.resolveMatch(shopRow.locator('td').nth(1).textContent(), /^mariadb10\./, 'MariaDB engine and version');
      t.equal(await shopRow.locator('svg.sparkline').count(), 2, 'sparklines of the MariaDB connections and transactions');
      await t.resolveMatch(shopRow.locator('td').nth(2).textContent(), /\d+ of \d+$/, 'MariaDB connections of max');
      await t.resolveMatch(shopRow.locator('td').nth(3).textContent(), /\d\/s$/, 'MariaDB transactions per second with unit');
      await t.resolveMatch(shopRow.locator('td').nth(4).textContent(), /(ms|µs|s)$|^no statements measured$/, 'MariaDB p95 with unit, or said in words');
      await page.waitForFunction(() => document.querySelector('#database-rows')?.textContent?.includes('unreachable'), undefined, { timeout: 15_000 });
      await t.resolveMatch(row('billing-replica').locator('.status').textContent(), 'unreachable');
      await t.resolveMatch(row('legacy-shop').locator('.status').textContent(), 'paused');
      await t.resolveMatch(row('legacy-shop').locator('td').nth(2).textContent(), 'no sample this hour');
      await page.locator('#active-alerts li').first().waitFor();
      await t.resolveMatch(page.locator('#active-alerts').textContent(), /orders.*connections\.total/s);
      await audit('overview');

      const shownNames = () => rows.locator('th a').evaluateAll((links) => links.filter((link) => link.closest('tr')!.hidden === false).map((link) => link.textContent));
      await page.getByLabel('Engine').selectOption('mariadb');
      t.same((await shownNames()).sort(), ['legacy-shop', 'shop'], 'filtered by engine');
      await page.getByLabel('Engine').selectOption('');
      await page.getByLabel('Status').selectOption('unreachable');
      t.same(await shownNames(), ['billing-replica'], 'filtered by status');
      await page.getByLabel('Status').selectOption('');

      await page.locator('body').focus();
      let reached = false;
      for (let step = 0; step < 25 && !reached; step++) {
        await page.keyboard.press('Tab');
        reached = await page.evaluate(() => document.activeElement?.textContent === 'orders' && document.activeElement.closest('#database-rows') !== null);
      }
      t.ok(reached, "the table's database link is reached with Tab");
      // Drawn again in the same document: at the shortest interval (10 s), or up to ~25 s apart when that pace would spend the pro plan's 1,000 requests before the hour's end.
      await page.waitForFunction((first) => document.querySelector('#refresh-status > time')?.getAttribute('datetime') !== first, firstDrawn, { timeout: 40_000 });
      t.ok(await page.evaluate(() => document.body.hasAttribute('data-loaded-once')), 'refreshed in place, without reloading');
      await page.setViewportSize({ width: 360, height: 740 });
      await page.emulateMedia({ colorScheme: 'dark' });
      await audit('overview 360 px dark');
      await Promise.all([page.waitForURL(`${server.url}/databases/${ordersId}`), page.keyboard.press('Enter')]);
    });
  });

  await t.test('the database page draws every snapshot metric over the chosen span, with a shared crosshair', async (t) => {
    await browser.withPage(t, async ({ page, audit }) => {
      await signInThroughPage(page, server.url, email, testPassword, `/databases/${ordersId}`);
      await t.resolveMatch(page.getByRole('heading', { level: 1 }).textContent(), 'orders');
      await page.locator('.chart-figure canvas').nth(6).waitFor();
      t.same(await page.locator('.chart-figure figcaption').allTextContents(), [
        'CPU',
        'Memory',
        'Disk',
        'Connections (against max)',
        'Queries per second',
        'Transactions per second',
        'Statement latency (mean, p95, p99)',
      ]);
      await t.resolveMatch(page.locator('#database-summary').textContent(), /Latency source(Percentiles|not known yet)/);
      await t.resolveMatch(page.locator('#database-summary').textContent(), 'every sample');
      await t.resolveMatch(page.locator('#chart-connections').textContent(), 'Alert rules (dashed): Anyone connected: Total >= 1', 'the rule is drawn on its chart, and said');
      t.equal(await page.locator('#chart-cpu .hint').count(), 0, 'no rule on CPU');
      await page.locator('#chart-connections').scrollIntoViewIfNeeded();
      const box = (await page.locator('#chart-connections .u-over').boundingBox())!;
      await page.mouse.move(box.x + box.width - 5, box.y + box.height / 2);
      t.ok(await page.locator('#chart-cpu .u-cursor-x').isVisible(), 'the crosshair shows on the other charts too');
      t.match(await page.locator('#chart-connections .u-legend').textContent(), /Total\d+/, 'the legend gives the value under the cursor');
      await audit('database 1 h');

      await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.9, box.y + box.height / 2, { steps: 5 });
      await page.mouse.up();
      await page.getByRole('button', { name: 'Show the whole span' }).waitFor();
      const [from, to] = await page.locator('#zoom-span time').evaluateAll((times) => times.map((time) => Date.parse(time.getAttribute('datetime')!)));
      t.ok(to! - from! > 15 * 60_000 && to! - from! < 30 * 60_000, `a drag across 40 % of the hour shows ${(to! - from!) / 60_000} minutes`);
      await page.getByRole('button', { name: 'Show the whole span' }).click();
      await t.resolveMatch(page.locator('#zoom-span').textContent(), 'Drag across a chart to look closer.', 'and the whole span comes back');

      await page.getByRole('button', { name: '7 d' }).click();
      await t.resolveMatch(page.getByRole('button', { name: '7 d' }).getAttribute('aria-pressed'), 'true');
      await page.waitForFunction(() => document.querySelector('#database-summary')?.textContent?.includes('buckets'));
      await page.setViewportSize({ width: 360, height: 740 });
      await audit('database 7 d 360 px');
    });
  });

  await t.test("the MariaDB database's page draws its real rates and latency, with units", async (t) => {
    await browser.withPage(t, async ({ page, audit }) => {
      await signInThroughPage(page, server.url, email, testPassword, `/databases/${shopId}`);
      await t.resolveMatch(page.getByRole('heading', { level: 1 }).textContent(), 'shop');
      await page.locator('.chart-figure canvas').nth(6).waitFor();
      await t.resolveMatch(page.locator('#database-summary').textContent(), /Latency source(Percentiles|not known yet)/);
      for (const chart of ['connections', 'qps', 'tps']) t.notOk(await page.locator(`#chart-${chart} .chart-note`).isVisible(), `${chart} has values to draw`);
      // The last sample, under the cursor at the right end of the charts: the legends give it with its unit.
      await page.locator('#chart-qps').scrollIntoViewIfNeeded();
      const box = (await page.locator('#chart-qps .u-over').boundingBox())!;
      await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
      await t.resolveMatch(page.locator('#chart-qps .u-legend').textContent(), /Queries\d+(\.\d+)?\/s/, 'queries per second with unit');
      await t.resolveMatch(page.locator('#chart-tps .u-legend').textContent(), /Transactions\d+(\.\d+)?\/s/, 'transactions per second with unit');
      await t.resolveMatch(page.locator('#chart-latency .u-legend').textContent(), /Mean(\d+(\.\d+)? (ms|µs|s)|no data)/, 'latency with unit, or said in words');
      await audit('database mariadb 1 h');
    });
  });
});
