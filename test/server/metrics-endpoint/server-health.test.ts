import { statSync } from 'node:fs';
import t from 'tap';
import { promtoolProblems, scrapeMetrics, seriesValue } from '../../helpers/scrape-metrics.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { createServiceKey, createTenant, startTestServer } from '../../helpers/test-server.js';
import { startWebhookReceiver } from '../../helpers/webhook-receiver.js';

const token = 'scrape-token-0123456789';
const start = new Date('2026-11-24T07:00:00Z');
const server = await startTestServer({
  now: start,
  metricsToken: token,
  allowPrivateWebhookTargets: true,
  webhookRetryPolicy: { baseDelayMs: 1_000, maxDelayMs: 1_000, retryForMs: 60_000, maxRetryAfterMs: 1_000 },
});
t.teardown(server.close);
const tenant = createTenant(server.services, start);
const agentKey = createServiceKey(server.services, tenant.orgId, start, { scopes: ['agent'], account: 'agent-host-1' });
const agentHeaders = { 'user-agent': 'dbmon-agent/1.2.3', 'x-dbmon-agent-hostname': 'db-host-1' };
const agentId: string = (await server.request('GET', '/v1/agent/assignments', { key: agentKey, headers: agentHeaders })).body.agent_id;

async function createDatabase(name: string): Promise<string> {
  const created = await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: { name, type: 'postgresql', agent_id: agentId, connection: { host: 'pg.internal', port: 5432, database: name, username: 'monitor' } },
  });
  return created.body.id as string;
}
const orders = await createDatabase('orders');
const fresh = await createDatabase('fresh');
const ordersLabels = `{database_id="${orders}",database_name="orders"}`;

const scrape = () => scrapeMetrics(server, token);


t.test('an idle server: every severity and attempt result at 0, no backlog, the state database on disk', async (t) => {
  const text = await scrape();
  for (const severity of ['info', 'warning', 'critical']) t.equal(seriesValue(text, `dbmon_alerts_active{severity="${severity}"}`), 0, severity);
  for (const result of ['succeeded', 'retrying', 'failed']) t.equal(seriesValue(text, `dbmon_webhook_delivery_attempts_total{result="${result}"}`), 0, result);
  t.equal(seriesValue(text, 'dbmon_webhook_outbox_pending_deliveries'), 0);
  t.equal(seriesValue(text, 'dbmon_webhook_outbox_oldest_pending_age_seconds'), 0);
  const databaseBytes = (server.db.pragma('page_count', { simple: true }) as number) * (server.db.pragma('page_size', { simple: true }) as number);
  t.ok(databaseBytes > 0);
  t.equal(seriesValue(text, 'dbmon_storage_file_size_bytes{file="database"}'), databaseBytes);
  const walBytes = seriesValue(text, 'dbmon_storage_file_size_bytes{file="wal"}')!;
  t.ok(walBytes > 0, 'the migrations wrote the write-ahead log');
  t.ok(Math.abs(walBytes - statSync(`${server.db.name}-wal`).size) <= 64 * 1024, 'the -wal file, give or take what this scrape wrote');
  t.notMatch(text, 'dbmon_database_ingest_lag_seconds', 'no sample, no lag');
  t.equal(promtoolProblems(text), '');
});

t.test('the webhook outbox: backlog, oldest pending age and attempts by result, as the dispatcher sees them', async (t) => {
  const receiver = await startWebhookReceiver(() => ({ status: 500 }));
  t.teardown(receiver.close);
  const dispatcher = server.dispatcher();
  const hook = async () => (await server.request('POST', '/v1/webhooks', { key: tenant.key, body: { url: receiver.url, event_types: ['alert.resolved'] } })).body.id as string;
  const live = await hook();
  const disabled = await hook();
  const sendTest = async (id: string) => t.equal((await server.request('POST', `/v1/webhooks/${id}/test`, { key: tenant.key })).status, 202);
  await sendTest(disabled);
  t.equal((await server.request('PUT', `/v1/webhooks/${disabled}`, { key: tenant.key, body: { enabled: false } })).status, 200);
  await sendTest(live);
  server.clock.now = new Date(start.getTime() + 10_000);

  let text = await scrape();
  t.equal(seriesValue(text, 'dbmon_webhook_outbox_pending_deliveries'), 1, "a disabled endpoint's delivery waits for it, not for the dispatcher");
  t.equal(seriesValue(text, 'dbmon_webhook_outbox_oldest_pending_age_seconds'), 10);

  t.equal(await dispatcher.tick(), 1);
  text = await scrape();
  t.equal(seriesValue(text, 'dbmon_webhook_delivery_attempts_total{result="retrying"}'), 1, 'a 500 is retried');
  t.equal(seriesValue(text, 'dbmon_webhook_outbox_pending_deliveries'), 1);

  receiver.answer = () => ({ status: 200 });
  server.clock.now = new Date(start.getTime() + 12_000);
  t.equal(await dispatcher.tick(), 1);
  text = await scrape();
  t.equal(seriesValue(text, 'dbmon_webhook_delivery_attempts_total{result="succeeded"}'), 1);
  t.equal(seriesValue(text, 'dbmon_webhook_outbox_pending_deliveries'), 0);
  t.equal(seriesValue(text, 'dbmon_webhook_outbox_oldest_pending_age_seconds'), 0);

  receiver.answer = () => ({ status: 500 });
  await sendTest(live);
  server.clock.now = new Date(server.clock.now.getTime() + 60_000);
  t.equal(await dispatcher.tick(), 1);
  text = await scrape();
  t.equal(seriesValue(text, 'dbmon_webhook_delivery_attempts_total{result="failed"}'), 1, 'past the retry window the delivery gives up');
  t.equal(seriesValue(text, 'dbmon_webhook_delivery_attempts_total{result="retrying"}'), 1);
  t.equal(promtoolProblems(text), '');
});

t.test('collections: ingest lag and the last collection that reached each database', async (t) => {
  const now = new Date(start.getTime() + 3_600_000);
  server.clock.now = now;
  const rule = await server.request('POST', '/v1/alerts/rules', {
    key: tenant.key,
    body: { name: 'orders down', database_id: orders, metric: 'reachable', operator: '==', threshold: 0, severity: 'info' },
  });
  t.equal(rule.status, 201, rule.text);
  const at = (secondsBefore: number) => new Date(now.getTime() - secondsBefore * 1000);
  const unreachable = (secondsBefore: number) =>
    makeSnapshot(at(secondsBefore), {
      reachable: false,
      error: 'connect ECONNREFUSED',
      metrics: {
        connections: { active: null, idle: null, total: null, max: null },
        throughput: { queries_per_second: null, transactions_per_second: null },
        latency: { avg_query_time_ms: null, p95_query_time_ms: null, p99_query_time_ms: null, source: null },
      },
    });
  const post = async (batchId: string, snapshots: ReturnType<typeof makeSnapshot>[]) => {
    const response = await server.request('POST', '/v1/agent/samples', {
      key: agentKey,
      headers: agentHeaders,
      body: { batch_id: batchId, samples: snapshots.map((snapshot) => ({ database_id: orders, snapshot })) },
    });
    t.equal(response.body.stored, snapshots.length, response.text);
  };
  await post('batch-health-0000000001', [makeSnapshot(at(180)), unreachable(120), unreachable(60)]);

  let text = await scrape();
  t.equal(seriesValue(text, `dbmon_database_ingest_lag_seconds${ordersLabels}`), 60, 'the newest sample, reached or not');
  t.equal(seriesValue(text, `dbmon_database_last_success_timestamp_seconds${ordersLabels}`), at(180).getTime() / 1000, 'the newest that reached it');
  t.notMatch(text, fresh, 'a database without samples has neither');

  const active = (await server.request('GET', '/v1/alerts?status=active&per_page=100', { key: tenant.key })).body.data as { id: string; severity: string }[];
  t.ok(active.some(({ severity }) => severity === 'info'), 'the rule fired');
  for (const severity of ['info', 'warning', 'critical']) {
    t.equal(seriesValue(text, `dbmon_alerts_active{severity="${severity}"}`), active.filter((alert) => alert.severity === severity).length, `${severity}, as the API lists them`);
  }
  const fired = active.find(({ severity }) => severity === 'info');
  t.equal((await server.request('PATCH', `/v1/alerts/${fired!.id}/resolve`, { key: tenant.key, body: {} })).status, 200);
  t.equal(seriesValue(await scrape(), 'dbmon_alerts_active{severity="info"}'), 0, 'a resolved alert is no longer counted');

  server.clock.now = new Date(now.getTime() + 30_000);
  text = await scrape();
  t.equal(seriesValue(text, `dbmon_database_ingest_lag_seconds${ordersLabels}`), 90, 'the lag grows while nothing arrives');

  await post('batch-health-0000000002', [makeSnapshot(server.clock.now)]);
  text = await scrape();
  t.equal(seriesValue(text, `dbmon_database_ingest_lag_seconds${ordersLabels}`), 0);
  t.equal(seriesValue(text, `dbmon_database_last_success_timestamp_seconds${ordersLabels}`), server.clock.now.getTime() / 1000);
  t.equal(promtoolProblems(text), '');

  const own = (await server.request('GET', `/metrics/databases/${orders}`, { headers: { authorization: `Bearer ${token}` } })).text;
  t.equal(seriesValue(own, 'dbmon_database_last_success_timestamp_seconds'), server.clock.now.getTime() / 1000, "on the database's own target too");
  t.notMatch(own, /dbmon_alerts_active|dbmon_webhook|dbmon_storage/, "but not the server's own health");
});
