import t from 'tap';
import { BrowserUnderTest, signInThroughPage } from '../../helpers/browser.js';
import { startTestEmbeddedAgent } from '../../helpers/embedded-agent-under-test.js';
import { createPasswordUser, testPassword } from '../../helpers/sign-in.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';
import { createThrowawayPostgresDatabase } from '../../helpers/throwaway-postgres-database.js';
import { waitUntil } from '../../helpers/wait-until.js';

const slowQuery = 'SELECT id, total FROM orders WHERE customer_id = $1';

/**
 * The database page's sections in chromium, against a server whose embedded agent monitors a real
 * PostgreSQL (pg_stat_statements, hypopg) running an unindexed query under load: the statement is
 * listed, an optimization is requested from its page and applied through the confirmation, and the
 * index is then on the database.
 */
t.test('database page sections in chromium', async (t) => {
  t.setTimeout(120_000);
  const database = await createThrowawayPostgresDatabase();
  t.teardown(() => database.drop());
  const client = await database.connect();
  t.teardown(() => client.end());
  await client.query('CREATE TABLE orders (id bigserial PRIMARY KEY, customer_id integer NOT NULL, total numeric NOT NULL)');
  await client.query('INSERT INTO orders (customer_id, total) SELECT i % 20000, i % 997 FROM generate_series(1, 200000) i');
  await client.query('ANALYZE orders');

  const server = await startTestServer();
  t.teardown(server.close);
  // The embedded agent samples and polls its jobs on real time: the server reads the same clock.
  Object.defineProperty(server.clock, 'now', { get: () => new Date() });
  const tenant = createTenant(server.services, server.clock.now, 'pro', 'Acme Operations');
  const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
  const created = await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: {
      name: 'orders',
      type: 'postgresql',
      connection: { host: database.settings.host, port: database.settings.port, database: database.name, username: database.settings.username },
      monitoring: { interval_seconds: 10 },
    },
  });
  const databaseId = created.body.id as string;
  const api = async (method: string, path: string) => (await server.request(method, path, { key: tenant.key })).body;

  const browser = await BrowserUnderTest.launch(server.url, import.meta.url);
  t.teardown(() => browser.close());
  startTestEmbeddedAgent(t, server);
  // The unindexed lookup runs under load until the agent has reported it (statements are deltas between two samples).
  let calls = 0;
  await waitUntil(
    'the slow statement among the collected ones',
    async () => {
      for (let i = 0; i < 10; i++, calls++) await client.query(slowQuery, [calls * 7]);
      const listed = (await api('GET', `/v1/databases/${databaseId}/queries`)).data as { query: string }[];
      return listed.some((query) => query.query === slowQuery);
    },
    40_000,
  );

  await browser.withPage(t, async ({ page, audit }) => {
    await signInThroughPage(page, server.url, email, testPassword, `/databases/${databaseId}`);
    const statementLink = page.locator('#slow-queries tbody th a', { hasText: slowQuery });
    await t.resolveMatch(statementLink.textContent(), slowQuery, 'the slow statement is listed');
    await t.resolveMatch(page.locator('#slow-queries th[aria-sort="descending"]').textContent(), 'Total time');
    await page.locator('#slow-queries').getByRole('link', { name: 'Calls' }).click();
    await t.resolveMatch(page.locator('#slow-queries th[aria-sort="descending"]').textContent(), 'Calls', 'sorted by calls');
    await t.resolveMatch(page.locator('#alert-rules').textContent(), /connections\.used_pct > 90.*every database/s, 'the stock rules apply');
    await t.resolveMatch(page.locator('#connection').textContent(), 'A password is not set; it is never shown.');
    await audit('database sections');

    // Live: a rule made through the API appears at the database's interval (10 s), the page not reloaded,
    // even with the charts on 30 days (whose daily points are read again once a day).
    await page.evaluate(() => Object.assign(window, { loadedOnce: true }));
    await page.getByRole('button', { name: '30 d' }).click();
    await server.request('POST', '/v1/alerts/rules', {
      key: tenant.key,
      body: { name: 'Busy orders', database_id: databaseId, metric: 'connections.total', operator: '>', threshold: 50, severity: 'warning' },
    });
    const newRule = page.locator('#alert-rules').getByRole('link', { name: 'Busy orders' });
    await newRule.waitFor({ timeout: 30_000 });
    t.equal(await page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce), true, 'the rule appeared without a reload');
    await t.resolveMatch(page.locator('#slow-queries th[aria-sort="descending"]').textContent(), 'Calls', 'the sections refreshed as they were asked for');
    await newRule.click();
    await page.locator('#rule-form-title', { hasText: 'Edit rule: Busy orders' }).waitFor();
    t.pass("the rule's link opens it in the editor");
    t.equal(await page.locator('#rule-name').inputValue(), 'Busy orders');
    await page.goBack();

    await page.locator('#slow-queries tbody th a', { hasText: slowQuery }).click();
    await page.getByRole('heading', { level: 1, name: 'Slow query' }).waitFor();
    await t.resolveMatch(page.locator('pre.statement').textContent(), slowQuery);
    await t.resolveMatch(page.locator('.bucket-chart figcaption').first().textContent(), /^Calls: up to \d+ calls per slice$/);
    await page.getByRole('button', { name: 'Request an optimization' }).click();
    await page.getByRole('link', { name: 'See the optimizations' }).waitFor();
    await audit('statement');

    const optimizations = async () => (await api('GET', `/v1/optimizations?database_id=${databaseId}`)).data as { id: string; status: string; statement: string }[];
    let found: Awaited<ReturnType<typeof optimizations>>[number] | undefined;
    await waitUntil('the analysis ready', async () => (found = (await optimizations()).find((row) => row.status === 'ready')) !== undefined, 30_000);
    const ready = found!;
    await page.getByRole('link', { name: 'See the optimizations' }).click();
    const entry = page.locator(`#optimization-${ready.id}`);
    await t.resolveMatch(entry.locator('.status').textContent(), 'ready to apply');
    await t.resolveMatch(entry.textContent(), /planner cost [\d.]+ → [\d.]+ \([\d.]+ % lower\)/, 'the estimated gain');
    await entry.getByText('Plans before and after').click();
    await t.resolveMatch(entry.locator('pre.plan').first().textContent(), /Seq Scan on public\.orders/, 'the plan before');
    await entry.getByRole('button', { name: 'Apply…' }).click();
    const dialog = page.getByRole('dialog');
    await t.resolveMatch(dialog.locator('pre.statement').textContent(), 'CREATE INDEX CONCURRENTLY "orders_customer_id_idx" ON "public"."orders" ("customer_id")', 'the confirmation names the statement');
    t.equal(ready.statement, await dialog.locator('pre.statement').textContent());
    await audit('apply confirmation');
    await Promise.all([page.waitForEvent('load'), dialog.getByRole('button', { name: 'Run it' }).click()]);

    await waitUntil('the optimization applied', async () => (await api('GET', `/v1/optimizations/${ready.id}`)).status === 'applied', 30_000);
    const indexes = await client.query("SELECT indexdef FROM pg_indexes WHERE tablename = 'orders' AND indexname = 'orders_customer_id_idx'");
    t.match(indexes.rows[0]?.indexdef, /ON public\.orders USING btree \(customer_id\)/, 'the index is on the database');
    await page.reload();
    await t.resolveMatch(entry.locator('.status').textContent(), 'applied');

    await page.getByLabel('Collect every (seconds)').fill('20');
    await page.getByLabel('Password', { exact: true }).fill('typed-secret-7');
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Save the connection' }).click()]);
    const saved = await api('GET', `/v1/databases/${databaseId}`);
    t.same([saved.monitoring.interval_seconds, saved.connection.password_set], [20, true], 'the settings and the password saved through the API');
    t.notMatch(await page.content(), 'typed-secret-7', 'the password is not shown back');
    await t.resolveMatch(page.locator('#password-state').textContent(), 'A password is set; it is never shown.');
    await page.getByLabel('Remove the stored password').check();
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Save the connection' }).click()]);
    t.equal((await api('GET', `/v1/databases/${databaseId}`)).connection.password_set, false, 'and removed');
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Pause monitoring' }).click()]);
    await page.getByRole('button', { name: 'Resume monitoring' }).waitFor();
    t.equal((await api('GET', `/v1/databases/${databaseId}`)).monitoring.enabled, false, 'paused through the API');
    await page.setViewportSize({ width: 360, height: 740 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await audit('database sections 360 px dark');
  });
});
