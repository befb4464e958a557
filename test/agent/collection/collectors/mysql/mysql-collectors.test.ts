import t from 'tap';
import { createHostCollector } from '../../../../../agent/collection/collectors/host.js';
import { mysqlCollectors } from '../../../../../agent/collection/collectors/mysql/mysql-collectors.js';
import { collectionRunner, mysqlSourceOn } from '../../../../helpers/collection-under-test.js';
import { createThrowawayMysqlDatabase } from '../../../../helpers/throwaway-mysql-database.js';
import { waitUntil } from '../../../../helpers/wait-until.js';

// Run in order: the checks share one database, so they must not overlap with one another's traffic.

const database = await createThrowawayMysqlDatabase();
const source = mysqlSourceOn(t, database);
const newRunner = () =>
  collectionRunner(source, [...mysqlCollectors, createHostCollector({ procRoot: '/proc', diskPath: '/' })]);
const client = await database.connect();
await client.query('CREATE TABLE notes (id int AUTO_INCREMENT PRIMARY KEY, body varchar(100)) ENGINE=InnoDB');

// MySQL keeps a latency histogram per schema; MariaDB's only one is server-wide.
const latencySource = (await source.flavor(AbortSignal.timeout(5000))) === 'mysql' ? 'histogram' : 'estimate';

t.test('every snapshot field is filled and plausible after two cycles with traffic', async (t) => {
  const runner = newRunner();
  const first = await runner.collect();
  t.equal(first.metrics.throughput.queries_per_second, null, 'no rates on the first cycle');
  for (let i = 0; i < 50; i++) {
    await client.query('BEGIN');
    await client.query('INSERT INTO notes (body) VALUES (?)', [`note ${i}`]);
    await client.query('COMMIT');
    await client.query('SELECT COUNT(*) FROM notes WHERE body LIKE ?', ['note 1%']);
  }
  const snapshot = await runner.collect();
  const { metrics } = snapshot;

  const [server] = await database.admin('SELECT VERSION() AS version');
  t.equal(snapshot.reachable, true);
  t.ok(String(server?.version).startsWith(snapshot.version ?? 'none'), `${snapshot.version} from ${server?.version}`);
  t.match(snapshot.version, /^\d+\.\d+\.\d+$/);
  t.ok((snapshot.database_size_bytes ?? 0) > 0, `size ${snapshot.database_size_bytes}`);
  for (const usage of [metrics.cpu_usage, metrics.memory_usage, metrics.disk_usage]) {
    t.ok(usage !== null && usage >= 0 && usage <= 100, `usage ${usage} is a percentage`);
  }
  t.same(metrics.connections, { active: 0, idle: 1, total: 1, max: metrics.connections.max }, "the agent's own left out");
  t.ok((metrics.connections.max ?? 0) >= 1);
  t.ok((metrics.throughput.transactions_per_second ?? 0) > 0, `TPS ${metrics.throughput.transactions_per_second}`);
  t.ok((metrics.throughput.queries_per_second ?? 0) > 0, `QPS ${metrics.throughput.queries_per_second}`);
  const { avg_query_time_ms: avg, p95_query_time_ms: p95, p99_query_time_ms: p99 } = metrics.latency;
  t.equal(metrics.latency.source, latencySource);
  t.ok((avg ?? 0) > 0 && (p95 ?? 0) >= (avg ?? 0) && (p99 ?? 0) >= (p95 ?? 0), JSON.stringify(metrics.latency));
  for (const series of ['questions', 'commands_total{command="commit"}', 'commands_total{command="rollback"}', 'threads_connected', 'uptime']) {
    t.type(snapshot.counters[`mysql_global_status_${series}`], 'number', series);
  }
  t.ok(snapshot.collectors.every((outcome) => outcome.success), JSON.stringify(snapshot.collectors));
  const insert = snapshot.statements?.find((statement) => statement.query.startsWith('INSERT INTO `notes`'));
  t.match(insert, { calls: 50, rows: 50 });
  t.ok((insert?.total_time_ms ?? 0) > 0 && (insert?.max_time_ms ?? 0) > 0);
  t.notOk(
    snapshot.statements?.some((statement) => /performance_schema|information_schema|@@/.test(statement.query)),
    "the agent's own statements are left out",
  );
  t.same(JSON.parse(JSON.stringify(snapshot)), snapshot, 'plain JSON');
});

t.test('QPS and TPS match a known load', async (t) => {
  const QUERIES = 5000;
  const TRANSACTIONS = 300;
  const runner = newRunner();
  const first = new Date();
  await runner.collect(first);
  for (let i = 0; i < QUERIES; i++) await client.query('SELECT 1');
  const middle = new Date();
  const second = await runner.collect(middle);
  const queriesExpected = QUERIES / ((middle.getTime() - first.getTime()) / 1000);
  const qps = second.metrics.throughput.queries_per_second ?? NaN;
  t.ok(Math.abs(qps - queriesExpected) / queriesExpected < 0.15, `QPS ${qps} vs ${queriesExpected}`);

  for (let i = 0; i < TRANSACTIONS; i++) {
    await client.query('BEGIN');
    await client.query('INSERT INTO notes (body) VALUES (?)', ['tx']);
    await client.query('COMMIT');
  }
  const last = new Date();
  const third = await runner.collect(last);
  const transactionsExpected = TRANSACTIONS / ((last.getTime() - middle.getTime()) / 1000);
  const tps = third.metrics.throughput.transactions_per_second ?? NaN;
  t.ok(Math.abs(tps - transactionsExpected) / transactionsExpected < 0.15, `TPS ${tps} vs ${transactionsExpected}`);
});

t.test('percentiles put p99 in the slow group', async (t) => {
  const runner = newRunner();
  await runner.collect();
  for (let i = 0; i < 1000; i++) await client.query('SELECT 1');
  for (let i = 0; i < 30; i++) await client.query('SELECT SLEEP(0.05)');
  const { metrics } = await runner.collect();
  const { avg_query_time_ms: avg, p95_query_time_ms: p95, p99_query_time_ms: p99, source: how } = metrics.latency;
  t.equal(how, latencySource);
  t.ok((p95 ?? NaN) >= (avg ?? NaN), `p95 ${p95} >= avg ${avg}`);
  t.ok((p99 ?? NaN) >= (p95 ?? NaN), `p99 ${p99} >= p95 ${p95}`);
  t.ok((p95 ?? NaN) < 10, `p95 ${p95} among the fast statements`);
  t.ok((p99 ?? NaN) >= 49 && (p99 ?? NaN) <= 100, `p99 ${p99} among the 50 ms sleeps`);
});

t.test('connections.active rises by the number of sessions running a statement', async (t) => {
  const runner = newRunner();
  const before = (await runner.collect()).metrics.connections;
  const sleepers = await Promise.all([1, 2, 3].map(() => database.connect()));
  const running = sleepers.map((connection) => connection.query('SELECT SLEEP(1.5)'));
  await waitUntil('three sessions in SLEEP', async () => {
    const [row] = await database.admin(
      "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ? AND INFO LIKE 'SELECT SLEEP%'",
      [database.name],
    );
    return Number(row?.n) === 3;
  });
  const during = (await runner.collect()).metrics.connections;
  await Promise.all(running);
  t.equal((during.active ?? NaN) - (before.active ?? NaN), 3);
  t.equal((during.total ?? NaN) - (before.total ?? NaN), 3);
});

t.test('the source reconnects by itself after its connection was killed', async (t) => {
  const runner = newRunner();
  t.equal((await runner.collect()).reachable, true);
  const [agent] = await source.query('SELECT CONNECTION_ID() AS id', [], AbortSignal.timeout(5000));
  await database.admin(`KILL ${Number(agent?.id)}`);
  const snapshot = await runner.collect();
  t.equal(snapshot.reachable, true, 'the next cycle opens a new connection');
  t.ok(snapshot.collectors.every((outcome) => outcome.success), JSON.stringify(snapshot.collectors));
});
