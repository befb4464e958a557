import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import t from 'tap';
import { CollectionRunner } from '../../agent/collection/collection-runner.js';
import { metricCatalog, type MetricCatalog, type MetricDefinition } from '../../common/metric-catalog.js';
import { historyQuery } from '../../server/metrics/metrics-schema.js';
import { openStateDir } from '../../server/state-dir.js';
import { migrate } from '../../server/storage/migrate.js';
import { createServiceKey, createTenant, startTestServer, type TestServer } from '../helpers/test-server.js';

const replicationLag: MetricDefinition = {
  path: 'replication.lag_seconds',
  engines: ['postgresql'],
  kind: 'gauge',
  unit: 'count',
  precision: 'integer',
  step: 1,
  help: 'Seconds the replica is behind its primary.',
  history: ['raw', '1m', '5m', '1h', '1d'],
  column: 'replication_lag_seconds',
  snapshot: 'metrics.replication.lag_seconds',
  api: true,
  prometheus: [{ name: 'dbmon_database_replication_lag_seconds', help: 'Seconds the replica is behind its primary.', engines: ['postgresql'] }],
};
const fixtureCatalog: MetricCatalog = [...metricCatalog, replicationLag];

/** A state directory migrated as in production, plus the fixture metric's columns (what its migration would add). */
function stateDirWithFixtureColumns(): string {
  const stateDir = mkdtempSync(join(tmpdir(), 'dbmon-catalog-'));
  const { db } = openStateDir(stateDir, undefined);
  migrate(db);
  db.exec('ALTER TABLE samples ADD COLUMN replication_lag_seconds INTEGER');
  for (const stat of ['avg', 'min', 'max', 'count']) db.exec(`ALTER TABLE sample_rollups ADD COLUMN replication_lag_seconds_${stat} REAL`);
  db.close();
  return stateDir;
}

/** A tenant, an agent key, and a PostgreSQL database that agent collects. */
async function agentDatabase(server: TestServer, now: Date, name: string) {
  const tenant = createTenant(server.services, now);
  const agentKey = createServiceKey(server.services, tenant.orgId, now, { scopes: ['agent'], account: 'agent-host-1' });
  const agentId: string = (await server.request('GET', '/v1/agent/assignments', { key: agentKey })).body.agent_id;
  const connection = { host: '127.0.0.1', database: name, username: 'monitor', password: 'pw' };
  const created = await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: { name, type: 'postgresql', agent_id: agentId, connection, monitoring: { interval_seconds: 60 } },
  });
  return { tenant, agentKey, databaseId: created.body.id as string };
}

t.test('a metric added to a fixture catalog reaches the snapshot, history, the API snapshot, /metrics and OpenAPI', async (t) => {
  const start = new Date('2026-11-22T10:00:00Z');
  const stateDir = stateDirWithFixtureColumns();
  t.teardown(() => rmSync(stateDir, { recursive: true, force: true }));
  const server = await startTestServer({ now: start, stateDir, catalog: fixtureCatalog, metricsToken: 'scrape-token-0123456789' });
  t.teardown(server.close);
  const { tenant, agentKey, databaseId } = await agentDatabase(server, start, 'replica');

  // The agent: a collector reports the new path; the runner places it in the snapshot.
  const lag: Record<string, number> = { 'replication.lag_seconds': 4 };
  const runner = new CollectionRunner({
    source: { ping: async () => undefined },
    collectors: [{ name: 'replication', collect: async () => ({ values: lag }) }],
    logger: pino({ level: 'silent' }),
    catalog: fixtureCatalog,
  });
  const snapshot = await runner.collect(start);
  t.same((snapshot.metrics as unknown as { replication: unknown }).replication, { lag_seconds: 4 }, 'the agent snapshot carries it');

  const send = (batchId: string, body: unknown) =>
    server.request('POST', '/v1/agent/samples', { key: agentKey, body: { batch_id: batchId, samples: [{ database_id: databaseId, snapshot: body }] } });
  const negative = await send('batch-catalog-0000000001', { ...snapshot, metrics: { ...snapshot.metrics, replication: { lag_seconds: -1 } } });
  t.equal(negative.status, 400, 'the snapshot schema validates it (never negative)');
  t.equal(negative.body.error.param, 'samples.0.snapshot.metrics.replication.lag_seconds');
  const stored = await send('batch-catalog-0000000002', snapshot);
  t.equal(stored.body.stored, 1, stored.text);

  const current = await server.request('GET', `/v1/databases/${databaseId}/metrics`, { key: tenant.key });
  t.equal(current.body.metrics.replication.lag_seconds, 4, 'the API snapshot shows it at its path');

  t.notOk(historyQuery(metricCatalog).safeParse({ metrics: 'replication.lag_seconds' }).success, 'unknown to the real catalog');
  const query = `metrics=replication.lag_seconds&from=${new Date(start.getTime() - 60_000).toISOString()}&to=${new Date(start.getTime() + 60_000).toISOString()}`;
  const raw = await server.request('GET', `/v1/databases/${databaseId}/metrics/history?${query}&resolution=raw`, { key: tenant.key });
  t.same(raw.body.data, [{ timestamp: start.toISOString(), metrics: { 'replication.lag_seconds': 4 } }], 'history lists it, raw');
  const rolled = await server.request('GET', `/v1/databases/${databaseId}/metrics/history?${query}&resolution=1m`, { key: tenant.key });
  t.same(rolled.body.data[0].metrics, { 'replication.lag_seconds': { avg: 4, min: 4, max: 4 } }, 'and rolled up');

  const scrape = await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer scrape-token-0123456789' } });
  const text = await scrape.text();
  t.match(text, '# HELP dbmon_database_replication_lag_seconds Seconds the replica is behind its primary.');
  t.match(text, `dbmon_database_replication_lag_seconds{database_id="${databaseId}",database_name="replica"} 4`);

  const openapi = await server.request('GET', '/v1/openapi.json');
  const apiMetrics = openapi.body.components.schemas.MetricsSnapshot.properties.metrics.properties;
  t.equal(apiMetrics.replication.properties.lag_seconds.description, 'Seconds the replica is behind its primary.', 'OpenAPI describes it');
  t.match(JSON.stringify(openapi.body.components.schemas.Snapshot), '"lag_seconds"');
});

t.test("the real catalog's Prometheus series: names, labels and units as exporters and dashboards expect", async (t) => {
  const start = new Date('2026-11-22T10:00:00Z');
  const server = await startTestServer({ now: start, metricsToken: 'scrape-token-0123456789' });
  t.teardown(server.close);
  const { agentKey, databaseId } = await agentDatabase(server, start, 'orders');
  const runner = new CollectionRunner({
    source: { ping: async () => undefined },
    collectors: [
      {
        name: 'fixed',
        collect: async () => ({
          values: { 'connections.active': 2, 'connections.idle': 3, 'connections.total': 5, 'connections.max': 100, memory_usage: 40, database_size_bytes: 8_000_000 },
        }),
      },
    ],
    logger: pino({ level: 'silent' }),
  });
  const snapshot = await runner.collect(start);
  const stored = await server.request('POST', '/v1/agent/samples', {
    key: agentKey,
    body: { batch_id: 'batch-catalog-0000000003', samples: [{ database_id: databaseId, snapshot }] },
  });
  t.equal(stored.body.stored, 1, stored.text);
  const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer scrape-token-0123456789' } })).text();
  const labels = `database_id="${databaseId}",database_name="orders"`;
  t.match(text, `dbmon_database_connections{${labels},state="idle"} 3`);
  t.match(text, `dbmon_database_connections{${labels},state="max"} 100`);
  t.match(text, `pg_settings_max_connections{${labels}} 100`);
  t.notMatch(text, `mysql_global_variables_max_connections{${labels}}`, 'exporter names only for their engine');
  t.match(text, `dbmon_database_memory_usage_ratio{${labels}} 0.4`);
  t.match(text, `pg_database_size_bytes{${labels}} 8000000`);
  t.match(text, `dbmon_database_size_bytes{${labels}} 8000000`);
  t.notMatch(text, `dbmon_database_cpu_usage_ratio{${labels}}`, 'a null value is no series');
});

t.test('every metric declares its stored step: 1 for integers, a power of ten finer than the two decimals figures show otherwise', async (t) => {
  for (const { path, precision, step } of metricCatalog) {
    if (precision === 'integer') t.equal(step, 1, `${path}: an integer is stored whole`);
    else t.ok(step === 1 || (step <= 0.001 && Number.isInteger(Math.log10(step))), `${path}: step ${step}`);
  }
});

t.test("the engine counters' rates: optional on ingest (agents before them leave them out), validated when sent, named in history's metrics", async (t) => {
  const start = new Date('2026-11-22T10:00:00Z');
  const server = await startTestServer({ now: start });
  t.teardown(server.close);
  const { tenant, agentKey, databaseId } = await agentDatabase(server, start, 'orders');
  const runner = new CollectionRunner({
    source: { ping: async () => undefined },
    collectors: [{ name: 'counters', collect: async (_source, { now }) => ({ readings: { rateCounters: { 'rates.pg_stat_database_xact_commit': now.getTime() / 100 } } }) }],
    logger: pino({ level: 'silent' }),
  });
  await runner.collect(new Date(start.getTime() - 10_000));
  const measured = await runner.collect(start);
  t.equal(measured.metrics.rates.pg_stat_database_xact_commit, 10, 'a rate between two cycles');
  const olderMetrics: Partial<typeof measured.metrics> = { ...measured.metrics };
  delete olderMetrics.rates;
  const older = { ...measured, timestamp: new Date(start.getTime() - 20_000).toISOString(), metrics: olderMetrics };
  const send = (batchId: string, snapshot: unknown) =>
    server.request('POST', '/v1/agent/samples', { key: agentKey, body: { batch_id: batchId, samples: [{ database_id: databaseId, snapshot }] } });
  const negative = await send('batch-rates-00000000001', { ...measured, metrics: { ...measured.metrics, rates: { pg_stat_database_xact_commit: -1 } } });
  t.equal(negative.status, 400);
  t.equal(negative.body.error.param, 'samples.0.snapshot.metrics.rates.pg_stat_database_xact_commit', 'a rate sent is validated');
  t.equal((await send('batch-rates-00000000002', older)).body.stored, 1, "an older agent's snapshot, without rates, is stored");
  t.equal((await send('batch-rates-00000000003', measured)).body.stored, 1);

  const query = `from=${new Date(start.getTime() - 60_000).toISOString()}&to=${new Date(start.getTime() + 1000).toISOString()}&resolution=raw`;
  const history = await server.request('GET', `/v1/databases/${databaseId}/metrics/history?metrics=rates.pg_stat_database_xact_commit,rates.mysql_global_status_questions&${query}`, { key: tenant.key });
  t.same(
    history.body.data.map((point: { metrics: unknown }) => point.metrics),
    [
      { 'rates.pg_stat_database_xact_commit': null, 'rates.mysql_global_status_questions': null },
      { 'rates.pg_stat_database_xact_commit': 10, 'rates.mysql_global_status_questions': null },
    ],
  );
  const unknown = await server.request('GET', `/v1/databases/${databaseId}/metrics/history?metrics=rates.pg_stat_database_conflicts&${query}`, { key: tenant.key });
  t.equal(unknown.status, 400);
  t.match(unknown.body.error.message, /unknown metric rates\.pg_stat_database_conflicts; known: .*rates\.pg_stat_database_xact_commit/);
  const openapi = await server.request('GET', '/v1/openapi.json');
  t.match(JSON.stringify(openapi.body.paths), /rates\.mysql_global_status_innodb_rows_deleted/, "history's metrics parameter lists them");
});
