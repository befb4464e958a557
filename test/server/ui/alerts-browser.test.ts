import t from 'tap';
import { BrowserUnderTest, signInThroughPage } from '../../helpers/browser.js';
import { startTestEmbeddedAgent } from '../../helpers/embedded-agent-under-test.js';
import { createPasswordUser, testPassword } from '../../helpers/sign-in.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';
import { createThrowawayPostgresDatabase } from '../../helpers/throwaway-postgres-database.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { startWebhookReceiver } from '../../helpers/webhook-receiver.js';

/**
 * The alerts and webhooks pages in chromium against a server whose embedded agent monitors a real
 * PostgreSQL: a rule made in the page fires on it and is resolved in the page; an endpoint made in
 * the page gets a test event at a real receiver, and the page shows the delivery.
 */
t.test('alerts and webhooks in chromium', async (t) => {
  t.setTimeout(90_000);
  const database = await createThrowawayPostgresDatabase();
  t.teardown(() => database.drop());
  const server = await startTestServer({ allowPrivateWebhookTargets: true });
  t.teardown(server.close);
  // The embedded agent samples on real time: the server reads the same clock.
  Object.defineProperty(server.clock, 'now', { get: () => new Date() });
  const receiver = await startWebhookReceiver();
  t.teardown(receiver.close);
  const tenant = createTenant(server.services, server.clock.now, 'pro', 'Acme Operations');
  const { userId, email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
  const api = async (method: string, path: string, body?: unknown) => (await server.request(method, path, { key: tenant.key, body })).body;
  const ordersId = (
    await api('POST', '/v1/databases', {
      name: 'orders',
      type: 'postgresql',
      connection: { host: database.settings.host, port: database.settings.port, database: database.name, username: database.settings.username },
      monitoring: { interval_seconds: 10 },
    })
  ).id as string;
  await api('POST', '/v1/alerts/rules', { name: 'Grown big', metric: 'database_size_bytes', operator: '>', threshold: 10 * 1024 ** 3, severity: 'info' });
  const browser = await BrowserUnderTest.launch(server.url, import.meta.url);
  t.teardown(() => browser.close());
  const markup = '<img src=x id=injected>';

  await t.test('a rule made in the page fires on the real database; resolved in the page with a note, the API says so', async (t) => {
    await browser.withPage(t, async ({ page, audit }) => {
      await signInThroughPage(page, server.url, email, testPassword, '/alerts');
      await page.locator('#rule-rows tr').first().waitFor();
      t.equal(await page.locator('#rule-rows tr').count(), 4, 'the stock rules and one more');
      await t.resolveMatch(page.locator('#rule-rows tr', { hasText: 'Grown big' }).textContent(), 'database_size_bytes > 10 GiB', 'a threshold in bytes, read');
      await page.getByLabel('Name').fill(`${markup} anyone connected`);
      await page.locator('#rule-database').selectOption({ label: 'orders' });
      await page.getByLabel('Metric').selectOption('connections.total');
      t.equal(await page.locator('#rule-threshold-unit').textContent(), 'count', 'the unit follows the metric');
      await page.getByLabel('Metric').selectOption('cpu_usage');
      t.equal(await page.locator('#rule-threshold-unit').textContent(), '%');
      await page.getByLabel('Metric').selectOption('status');
      t.ok(await page.getByLabel('Status').isVisible(), 'a status rule takes a status value');
      t.ok(await page.locator('#rule-operator option[value=">"]').isDisabled(), 'and compares by == or != only');
      await page.getByLabel('Metric').selectOption('connections.total');
      await page.getByLabel('Comparison').selectOption('>=');
      await page.getByLabel('Threshold').fill('1');
      await page.getByRole('button', { name: 'Create rule' }).click();
      const ruleRow = page.locator('#rule-rows tr', { hasText: 'anyone connected' });
      await ruleRow.waitFor();
      await t.resolveMatch(ruleRow.textContent(), `${markup} anyone connectedordersconnections.total >= 1first samplewarningyes`);
      const rule = ((await api('GET', '/v1/alerts/rules')).data as { id: string; name: string }[]).find((candidate) => candidate.name.endsWith('anyone connected'))!;

      await ruleRow.getByRole('button', { name: /^Edit / }).click();
      await page.getByLabel('Held for (seconds)').fill('0');
      await page.locator('#rule-severity').selectOption('critical');
      // Other rules' rows may read "critical" already: wait for the save's own answer.
      const saved = page.waitForResponse((response) => response.request().method() === 'PUT' && response.url().includes(`/v1/alerts/rules/${rule.id}`));
      await page.getByRole('button', { name: 'Save rule' }).click();
      t.equal((await saved).status(), 200);
      t.match(await api('GET', `/v1/alerts/rules/${rule.id}`), { severity: 'critical', threshold: 1, database_id: ordersId }, 'edited through the API');
      await ruleRow.getByRole('button', { name: /^Disable / }).click();
      await page.waitForFunction(() => document.querySelector('#rule-rows')?.textContent?.includes('criticalno'));
      t.equal((await api('GET', `/v1/alerts/rules/${rule.id}`)).enabled, false);
      await ruleRow.getByRole('button', { name: /^Enable / }).click();
      await page.waitForFunction(() => document.querySelector('#rule-rows')?.textContent?.includes('criticalyes'));

      // An idle session of our own: the agent leaves its own connection out of the count.
      const client = await database.connect();
      t.teardown(() => client.end());
      startTestEmbeddedAgent(t, server);
      let firing: { id: string } | undefined;
      await waitUntil(
        'the alert of the rule',
        async () => (firing = ((await api('GET', '/v1/alerts')).data as { id: string; rule_id: string }[]).find((alert) => alert.rule_id === rule.id)) !== undefined,
        20_000,
      );
      await page.locator('#alert-severity').selectOption('critical');
      const alertRow = page.locator(`#alert-rows tr[data-alert-id="${firing!.id}"]`);
      await alertRow.waitFor();
      await t.resolveMatch(alertRow.textContent(), `${markup} anyone connected: connections.total is`, 'the message, markup as text');
      t.equal(await page.locator('#injected').count(), 0, 'attack: markup in a rule name and alert message stays text');
      await audit('alerts active');

      let reached = false;
      for (let step = 0; step < 60 && !reached; step++) {
        await page.keyboard.press('Tab');
        reached = await page.evaluate(() => document.activeElement?.textContent === 'Resolve…');
      }
      t.ok(reached, 'the Resolve button is reached with Tab');
      await page.keyboard.press('Enter');
      await page.getByLabel('Note (optional)').fill('Planned load test <b>ok</b>');
      await audit('resolve dialog');
      await page.getByRole('button', { name: 'Resolve', exact: true }).click();
      await alertRow.waitFor({ state: 'detached' });
      t.match(await api('GET', `/v1/alerts/${firing!.id}`), { status: 'resolved', resolved_by: userId, resolution_note: 'Planned load test <b>ok</b>' }, 'resolved through the API');

      await page.getByLabel('State').selectOption('resolved');
      await alertRow.waitFor();
      await t.resolveMatch(alertRow.textContent(), 'Note: Planned load test <b>ok</b>');
      await page.getByLabel('Fired').selectOption('1h');
      await alertRow.waitFor();
      await page.setViewportSize({ width: 360, height: 740 });
      await page.emulateMedia({ colorScheme: 'dark' });
      await audit('alerts resolved 360 px dark');
    });
  });

  await t.test('an endpoint made in the page shows its secret once and gets a test event, seen in its delivery log', async (t) => {
    server.dispatcher({ now: () => new Date(), pollIntervalMs: 50 }).start();
    await browser.withPage(t, async ({ page, audit }) => {
      await signInThroughPage(page, server.url, email, testPassword, '/webhooks');
      await page.locator('#no-webhooks').waitFor();
      const url = `${receiver.url}?tag=<b>bold</b>`;
      await page.getByLabel('URL').fill(url);
      await page.getByLabel('Description (optional)').fill(`${markup} on-call`);
      await page.getByLabel('alert.triggered').check();
      t.notOk(await page.getByLabel('Every event, also those added later').isChecked(), 'one type unticks "every event"');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.locator('#new-secret').waitFor();
      const secret = await page.locator('#new-secret-value').textContent();
      t.match(secret, /^whsec_[A-Za-z0-9+/=]{32}$/, 'the secret is shown');
      const row = page.locator('#webhook-rows tr').first();
      await row.waitFor();
      await t.resolveMatch(row.textContent(), `${markup} on-call`);
      await t.resolveMatch(row.textContent(), 'alert.triggeredenabled');
      t.equal(await page.locator('#injected, #webhook-rows b').count(), 0, 'attack: markup in a URL and a description stays text');
      await audit('webhooks secret shown');
      await page.getByRole('button', { name: 'Done' }).click();
      t.equal(await page.locator('#new-secret-value').textContent(), '', 'and gone once dismissed');

      await row.getByRole('button', { name: /^Send a test event/ }).click();
      await waitUntil('the test event at the receiver', async () => receiver.ofType('webhook.test').length === 1, 10_000);
      const delivery = page.locator('#delivery-rows tr[data-status="succeeded"]');
      await delivery.waitFor({ timeout: 10_000 });
      await t.resolveMatch(delivery.textContent(), new RegExp(`^webhook\\.test${receiver.ofType('webhook.test')[0]!.json.id}.*succeeded.*HTTP 200, \\d+ ms`));
      await row.getByRole('button', { name: /^Disable / }).click();
      await page.waitForFunction(() => document.querySelector('#webhook-rows')?.textContent?.includes('disabled'));
      await page.setViewportSize({ width: 360, height: 740 });
      await page.emulateMedia({ colorScheme: 'dark' });
      await audit('webhooks deliveries 360 px dark');
      page.once('dialog', (dialog) => void dialog.accept());
      await row.getByRole('button', { name: /^Delete / }).click();
      await page.locator('#no-webhooks').waitFor();
      t.equal((await api('GET', '/v1/webhooks')).data.length, 0, 'deleted through the API');
    });
  });
});
