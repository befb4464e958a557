import { execFileSync } from 'node:child_process';
import t from 'tap';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { createServiceKey, createTenant, startTestServer } from '../../helpers/test-server.js';

const token = 'scrape-token-0123456789';
const start = new Date('2026-11-24T06:00:00Z');
const server = await startTestServer({ now: start, metricsToken: token });
t.teardown(server.close);
const tenant = createTenant(server.services, start);
const agentKey = createServiceKey(server.services, tenant.orgId, start, { scopes: ['agent'], account: 'agent-host-1' });
const agentHeaders = { 'user-agent': 'dbmon-agent/1.2.3', 'x-dbmon-agent-hostname': 'db-host-1' };
const agentId: string = (await server.request('GET', '/v1/agent/assignments', { key: agentKey, headers: agentHeaders })).body.agent_id;

async function createDatabase(name: string, type: string, host: string, port: number): Promise<string> {
  const created = await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: { name, type, agent_id: agentId, connection: { host, port, database: name, username: 'monitor' }, monitoring: { interval_seconds: 60 } },
  });
  return created.body.id as string;
}
const orders = await createDatabase('orders', 'postgresql', 'pg.internal', 5433);
const shop = await createDatabase('shop', 'mariadb', 'fd00::7', 3306);

const sample = (databaseId: string, counters: Record<string, number>) => ({ database_id: databaseId, snapshot: makeSnapshot(new Date(start.getTime() - 60_000), { counters }) });
const stored = await server.request('POST', '/v1/agent/samples', {
  key: agentKey,
  headers: agentHeaders,
  body: {
    batch_id: 'batch-targets-000000001',
    samples: [
      sample(orders, { 'pg_stat_database_xact_commit{datid="16384",datname="orders"}': 1000, 'pg_locks_count{datname="orders",mode="exclusivelock"}': 2 }),
      sample(shop, { 'mysql_global_status_commands_total{command="select"}': 42, mysql_global_status_uptime: 3600 }),
    ],
  },
});
t.equal(stored.body.stored, 2);

const bearer = { authorization: `Bearer ${token}` };

t.test('the targets and each database need the metrics token', async (t) => {
  for (const path of ['/metrics/targets', `/metrics/databases/${orders}`]) {
    t.equal((await server.request('GET', path)).status, 401, `${path} without a token`);
    t.equal((await server.request('GET', path, { headers: { authorization: 'Bearer scrape-token-0123456780' } })).status, 401, `${path} with a wrong one`);
  }
});

t.test('http_sd lists every database at its own address with its own path', async (t) => {
  const response = await server.request('GET', '/metrics/targets', { headers: bearer });
  t.equal(response.status, 200);
  const byName = (a: { labels: { __meta_dbmon_database_name: string } }, b: typeof a) => a.labels.__meta_dbmon_database_name.localeCompare(b.labels.__meta_dbmon_database_name);
  t.same([...response.body].sort(byName), [
    {
      targets: ['pg.internal:5433'],
      labels: { __metrics_path__: `/metrics/databases/${orders}`, __meta_dbmon_database_id: orders, __meta_dbmon_database_name: 'orders', __meta_dbmon_engine: 'postgresql' },
    },
    {
      targets: ['[fd00::7]:3306'],
      labels: { __metrics_path__: `/metrics/databases/${shop}`, __meta_dbmon_database_id: shop, __meta_dbmon_database_name: 'shop', __meta_dbmon_engine: 'mariadb' },
    },
  ]);
  t.notMatch(response.text, /password|monitor/, 'no credentials, no user name');
});

t.test("a database's own target: the exporters' names and labels only, promtool-clean", async (t) => {
  const response = await server.request('GET', `/metrics/databases/${orders}`, { headers: bearer });
  t.equal(response.status, 200);
  t.match(response.headers.get('content-type'), 'text/plain');
  const text = response.text;
  t.match(text, /^pg_up 1$/m);
  t.match(text, /^pg_stat_database_xact_commit\{datid="16384",datname="orders"\} 1000$/m);
  t.match(text, /^pg_locks_count\{datname="orders",mode="exclusivelock"\} 2$/m);
  t.match(text, /^# TYPE pg_stat_database_xact_commit untyped$/m, 'a counter without _total is untyped');
  t.notMatch(text, /database_id|mysql_|dbmon_http/, "no fleet labels, no other database's series, not the server's own");
  t.equal(execFileSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' }).trim(), '', 'promtool check metrics reports nothing');

  const mariadb = (await server.request('GET', `/metrics/databases/${shop}`, { headers: bearer })).text;
  t.match(mariadb, /^mysql_up 1$/m);
  t.match(mariadb, /^mysql_global_status_commands_total\{command="select"\} 42$/m);
  t.match(mariadb, /^# TYPE mysql_global_status_commands_total counter$/m);
  t.equal(execFileSync('promtool', ['check', 'metrics'], { input: mariadb, encoding: 'utf8' }).trim(), '');
});

t.test('/metrics keeps the whole fleet with the database labels, promtool-clean', async (t) => {
  const text = (await server.request('GET', '/metrics', { headers: bearer })).text;
  t.match(text, `pg_locks_count{database_id="${orders}",database_name="orders",datname="orders",mode="exclusivelock"} 2`);
  t.match(text, `mysql_global_status_commands_total{database_id="${shop}",database_name="shop",command="select"} 42`);
  t.equal(execFileSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' }).trim(), '');
});

t.test('an unknown database is 404', async (t) => {
  const response = await server.request('GET', '/metrics/databases/db_000000000000000000000000', { headers: bearer });
  t.equal(response.status, 404);
  t.equal(response.body.error.type, 'not_found');
});
