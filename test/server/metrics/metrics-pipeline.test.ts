import { execFileSync } from 'node:child_process';
import t from 'tap';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { createServiceKey, createTenant, startTestServer } from '../../helpers/test-server.js';

const minute = 60_000;

t.test('agent protocol, ingest, current metrics, history and Prometheus', async (t) => {
  const start = new Date('2026-11-22T10:00:00Z');
  const server = await startTestServer({ now: start, metricsToken: 'scrape-token-0123456789' });
  t.teardown(server.close);
  const tenant = createTenant(server.services, start);
  const agentKey = createServiceKey(server.services, tenant.orgId, start, { scopes: ['agent'], account: 'agent-host-1' });
  const agentHeaders = { 'user-agent': 'dbmon-agent/1.2.3', 'x-dbmon-agent-hostname': 'db-host-1' };

  const assignmentsBefore = await server.request('GET', '/v1/agent/assignments', { key: agentKey, headers: agentHeaders });
  t.equal(assignmentsBefore.status, 200);
  const agentId: string = assignmentsBefore.body.agent_id;
  t.match(agentId, /^agent_/);
  t.same(assignmentsBefore.body.databases, []);

  const created = await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: {
      name: 'orders',
      type: 'postgresql',
      agent_id: agentId,
      connection: { host: '127.0.0.1', database: 'orders', username: 'monitor', password: 'pw-for-agent' },
      monitoring: { interval_seconds: 60 },
    },
  });
  t.equal(created.status, 201);
  const databaseId: string = created.body.id;
  t.equal(created.body.agent_id, agentId);

  await t.test('an agent gets its databases with the decrypted password; the dashboard key is refused', async (t) => {
    const response = await server.request('GET', '/v1/agent/assignments', { key: agentKey, headers: agentHeaders });
    t.equal(response.body.databases.length, 1);
    t.equal(response.body.databases[0].connection.password, 'pw-for-agent');
    t.equal(response.headers.get('cache-control'), 'no-store');
    const dashboard = await server.request('GET', '/v1/agent/assignments', { key: tenant.key });
    t.equal(dashboard.status, 403, 'keys without the agent scope cannot read connection secrets');
    const agents = await server.request('GET', '/v1/agents', { key: tenant.key });
    t.equal(agents.body.data[0].hostname, 'db-host-1');
    t.equal(agents.body.data[0].version, '1.2.3');
  });

  await t.test('no sample yet: 200 with null timestamp and values', async (t) => {
    const response = await server.request('GET', `/v1/databases/${databaseId}/metrics`, { key: tenant.key });
    t.equal(response.status, 200);
    t.equal(response.body.timestamp, null);
    t.equal(response.body.metrics.connections.active, null);
    t.equal(response.body.status, 'pending');
  });

  const batch = {
    batch_id: 'batch-0000000000000001',
    spool_dropped_total: 7,
    samples: [0, 1, 2].map((i) => ({
      database_id: databaseId,
      snapshot: makeSnapshot(new Date(start.getTime() - (3 - i) * minute), {
        metrics: {
          connections: { active: i + 1, idle: 1, total: i + 2, max: 100 },
          throughput: { queries_per_second: 10 * (i + 1), transactions_per_second: i + 1 },
          latency: { avg_query_time_ms: 2, p95_query_time_ms: 5, p99_query_time_ms: 10, source: 'histogram' },
        },
      }),
    })),
  };

  await t.test('a batch is stored once, however often it is retried', async (t) => {
    const first = await server.request('POST', '/v1/agent/samples', { key: agentKey, headers: agentHeaders, body: batch });
    t.equal(first.status, 200);
    t.same(first.body, { batch_id: batch.batch_id, stored: 3, duplicate: false, rejected: 0 });
    const retry = await server.request('POST', '/v1/agent/samples', { key: agentKey, headers: agentHeaders, body: batch });
    t.same(retry.body, { batch_id: batch.batch_id, stored: 0, duplicate: true, rejected: 0 });
    const sameSamplesNewId = await server.request('POST', '/v1/agent/samples', {
      key: agentKey,
      headers: agentHeaders,
      body: { ...batch, batch_id: 'batch-0000000000000002' },
    });
    t.equal(sameSamplesNewId.body.stored, 0, 'a sample (database, timestamp) is stored once even under a new batch id');
    t.equal(server.db.prepare('SELECT count(*) FROM samples').pluck().get(), 3);
  });

  await t.test('the database turns healthy and learns its version', async (t) => {
    const response = await server.request('GET', `/v1/databases/${databaseId}`, { key: tenant.key });
    t.equal(response.body.status, 'healthy');
    t.equal(response.body.version, '15.19');
  });

  await t.test('current metrics: gauges from the latest sample, rates over the range', async (t) => {
    const response = await server.request('GET', `/v1/databases/${databaseId}/metrics?range=5m`, { key: tenant.key });
    t.equal(response.status, 200);
    t.equal(response.body.timestamp, new Date(start.getTime() - minute).toISOString());
    t.same(response.body.metrics.connections, { active: 3, idle: 1, total: 4, max: 100 });
    t.equal(response.body.metrics.throughput.queries_per_second, 20, 'mean of 10, 20, 30');
    t.equal(response.body.metrics.throughput.transactions_per_second, 2);
    t.equal(response.body.metrics.latency.avg_query_time_ms, 2);
    t.equal(response.body.metrics.latency.source, 'histogram');
    const narrow = await server.request('GET', `/v1/databases/${databaseId}/metrics?range=2m`, { key: tenant.key });
    t.equal(narrow.body.metrics.throughput.queries_per_second, 30, 'only the samples inside the range (the one 2 min ago is its open end)');
    for (const bad of ['5x', '30s', '31d', '0m']) {
      const refused = await server.request('GET', `/v1/databases/${databaseId}/metrics?range=${bad}`, { key: tenant.key });
      t.equal(refused.status, 400, `range=${bad}`);
      t.equal(refused.body.error.param, 'range');
    }
  });

  await t.test('samples for databases the agent does not collect are rejected', async (t) => {
    const other = createTenant(server.services, start);
    const foreign = await server.request('POST', '/v1/databases', {
      key: other.key,
      body: { name: 'foreign', type: 'mysql', connection: { host: 'h', database: 'd', username: 'u' } },
    });
    const response = await server.request('POST', '/v1/agent/samples', {
      key: agentKey,
      headers: agentHeaders,
      body: {
        batch_id: 'batch-0000000000000003',
        samples: [
          { database_id: foreign.body.id, snapshot: makeSnapshot(start) },
          { database_id: 'db_doesnotexist0000000000', snapshot: makeSnapshot(start) },
          { database_id: databaseId, snapshot: makeSnapshot(new Date(start.getTime() + 3_600_000)) },
        ],
      },
    });
    t.same(response.body, { batch_id: 'batch-0000000000000003', stored: 0, duplicate: false, rejected: 3 });
    const malformed = await server.request('POST', '/v1/agent/samples', {
      key: agentKey,
      body: { batch_id: 'short', samples: [] },
    });
    t.equal(malformed.status, 400);
  });

  await t.test('an unreachable collection marks the database unreachable', async (t) => {
    const response = await server.request('POST', '/v1/agent/samples', {
      key: agentKey,
      body: {
        batch_id: 'batch-0000000000000004',
        samples: [
          {
            database_id: databaseId,
            snapshot: makeSnapshot(new Date(start.getTime() - 30_000), {
              reachable: false,
              error: 'connect ECONNREFUSED',
              metrics: {
                connections: { active: null, idle: null, total: null, max: null },
                throughput: { queries_per_second: null, transactions_per_second: null },
                latency: { avg_query_time_ms: null, p95_query_time_ms: null, p99_query_time_ms: null, source: null },
              },
            }),
          },
        ],
      },
    });
    t.equal(response.body.stored, 1);
    const database = await server.request('GET', `/v1/databases/${databaseId}`, { key: tenant.key });
    t.equal(database.body.status, 'unreachable');
  });

  await t.test('Prometheus: exporter names, own metrics, token, promtool-clean', async (t) => {
    const refused = await fetch(`${server.url}/metrics`);
    t.equal(refused.status, 401);
    const response = await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer scrape-token-0123456789' } });
    t.equal(response.status, 200);
    const text = await response.text();
    t.match(text, new RegExp(`pg_up\\{database_id="${databaseId}",database_name="orders"\\} 0`));
    t.match(text, new RegExp(`pg_stat_database_xact_commit\\{database_id="${databaseId}",database_name="orders",datid="16384",datname="orders"\\} 1000`));
    t.match(text, /dbmon_http_requests_total\{method="POST",route="\/v1\/agent\/samples",status="200"\} \d+/);
    t.match(text, /dbmon_ingest_batches_total\{result="duplicate"\} 1/);
    t.match(text, new RegExp(`dbmon_agent_spool_dropped_samples\\{agent_id="${agentId}",agent_name="db-host-1"\\} 7`));
    t.match(text, /dbmon_agent_last_seen_age_seconds/);
    const promtool = execFileSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    t.equal(promtool.trim(), '', 'promtool check metrics reports nothing');
  });
});

t.test('history: rollups give exact avg/min/max over known values', async (t) => {
  const now = new Date('2026-11-22T12:00:00Z');
  const server = await startTestServer({ now });
  t.teardown(server.close);
  const tenant = createTenant(server.services, now);
  const created = await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: { name: 'h', type: 'mariadb', connection: { host: 'h', database: 'd', username: 'u' }, monitoring: { interval_seconds: 10 } },
  });
  const databaseId: string = created.body.id;
  // 11:00:00 .. 11:09:50 every 10 s: active connections cycle 0..5, cpu = minute index.
  const samples = Array.from({ length: 60 }, (_, i) => {
    const at = new Date(Date.parse('2026-11-22T11:00:00Z') + i * 10_000);
    return {
      database_id: databaseId,
      snapshot: makeSnapshot(at, {
        metrics: { cpu_usage: Math.floor(i / 6), connections: { active: i % 6, idle: 0, total: i % 6, max: 10 } },
      }),
    };
  });
  const result = server.services.ingest.ingest({ kind: 'embedded' }, { batch_id: 'history-batch-000001', samples }, now);
  t.equal(result.stored, 60);

  const path = `/v1/databases/${databaseId}/metrics/history`;
  const oneMinute = await server.request('GET', `${path}?metrics=cpu_usage,connections.active&from=2026-11-22T11:00:00Z&to=2026-11-22T11:10:00Z&resolution=1m`, { key: tenant.key });
  t.equal(oneMinute.status, 200, oneMinute.text);
  t.equal(oneMinute.body.resolution, '1m');
  t.equal(oneMinute.body.data.length, 10);
  t.same(oneMinute.body.data[3], {
    timestamp: '2026-11-22T11:03:00.000Z',
    metrics: { cpu_usage: { avg: 3, min: 3, max: 3 }, 'connections.active': { avg: 2.5, min: 0, max: 5 } },
  });

  const fiveMinutes = await server.request('GET', `${path}?metrics=cpu_usage&from=2026-11-22T11:00:00Z&to=2026-11-22T11:10:00Z&resolution=5m`, { key: tenant.key });
  t.same(fiveMinutes.body.data.map((point: { metrics: { cpu_usage: unknown } }) => point.metrics.cpu_usage), [
    { avg: 2, min: 0, max: 4 },
    { avg: 7, min: 5, max: 9 },
  ]);

  const raw = await server.request('GET', `${path}?metrics=connections.active&from=2026-11-22T11:00:00Z&to=2026-11-22T11:01:00Z&resolution=raw`, { key: tenant.key });
  t.same(raw.body.data.map((point: { metrics: Record<string, number> }) => point.metrics['connections.active']), [0, 1, 2, 3, 4, 5]);

  const auto = await server.request('GET', `${path}?range=2h`, { key: tenant.key });
  t.equal(auto.body.resolution, '1m', '2 h of 10 s samples would be 720 raw points; auto keeps to 500');
  t.equal(auto.body.data.length, 10, 'ten minutes hold data');
  const autoRaw = await server.request('GET', `${path}?range=1h&metrics=cpu_usage`, { key: tenant.key });
  t.equal(autoRaw.body.resolution, 'raw', '1 h of 10 s samples is 360 points');
  t.equal(autoRaw.body.data.length, 60);
  const both = await server.request('GET', `${path}?range=1h&from=2026-11-22T11:00:00Z`, { key: tenant.key });
  t.equal(both.status, 400);
  const unknown = await server.request('GET', `${path}?metrics=cpu_usage,bogus`, { key: tenant.key });
  t.equal(unknown.status, 400);
  t.equal(unknown.body.error.param, 'metrics');
  const longRaw = await server.request('GET', `${path}?range=30d&resolution=raw&metrics=cpu_usage`, { key: tenant.key });
  t.equal(longRaw.status, 200, '30 days at raw resolution holding 60 samples answers them');
  t.equal(longRaw.body.data.length, 60);
  const insert = server.db.prepare('INSERT INTO samples (database_id, ts, reachable) VALUES (?, ?, 1)');
  server.db.transaction(() => {
    for (let i = 1; i <= 10_000; i++) insert.run(databaseId, Date.parse('2026-11-20T00:00:00Z') + i * 10_000);
  })();
  const tooMany = await server.request('GET', `${path}?range=30d&resolution=raw&metrics=cpu_usage`, { key: tenant.key });
  t.equal(tooMany.status, 400, '10060 samples are more than a response holds');
  t.equal(tooMany.body.error.param, 'resolution');
  const coarser = await server.request('GET', `${path}?range=30d&resolution=1h&metrics=cpu_usage`, { key: tenant.key });
  t.equal(coarser.status, 200, coarser.text);
  t.end();
});
