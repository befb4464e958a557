import t from 'tap';
import { createHostCollector } from '../../../../../agent/collection/collectors/host.js';
import { postgresCollectors } from '../../../../../agent/collection/collectors/postgres/postgres-collectors.js';
import { collectionRunner, postgresSourceOn } from '../../../../helpers/collection-under-test.js';
import { createThrowawayPostgresDatabase } from '../../../../helpers/throwaway-postgres-database.js';
import { waitUntil } from '../../../../helpers/wait-until.js';

const database = await createThrowawayPostgresDatabase();
const source = postgresSourceOn(t, database);

t.test('every snapshot field is filled and plausible after two cycles with traffic', async (t) => {
  const runner = collectionRunner(source, [...postgresCollectors, createHostCollector({ procRoot: '/proc', diskPath: '/' })]);
  const client = await database.connect();
  await client.query('CREATE TABLE notes (id serial PRIMARY KEY, body text)');
  const first = await runner.collect();
  t.equal(first.metrics.throughput.queries_per_second, null, 'no rates on the first cycle');
  t.equal(first.statements, undefined);

  for (let i = 0; i < 50; i++) {
    await client.query('BEGIN');
    await client.query('INSERT INTO notes (body) VALUES ($1)', [`note ${i}`]);
    await client.query('COMMIT');
    await client.query('SELECT count(*) FROM notes WHERE body LIKE $1', ['note 1%']);
  }
  await client.query('SELECT pg_sleep(0.02)');
  const reported = async () => {
    const { rows } = await database.admin('SELECT xact_commit::int AS n FROM pg_stat_database WHERE datname = $1', [
      database.name,
    ]);
    return Number(rows[0]?.n) >= (Object.entries(first.counters).find(([key]) => key.startsWith('pg_stat_database_xact_commit{'))?.[1] ?? 0) + 50;
  };
  await client.end();
  await waitUntil('the transactions reported to pg_stat_database', reported);
  const snapshot = await runner.collect();
  const { metrics } = snapshot;

  const { rows } = await database.admin("SELECT current_setting('server_version_num')::int / 10000 AS major, oid::text AS datid FROM pg_database WHERE datname = $1", [database.name]);
  const datid = String(rows[0]?.datid);
  t.equal(snapshot.reachable, true);
  t.match(snapshot.version, new RegExp(`^${rows[0]?.major}\\.\\d+$`));
  t.ok((snapshot.database_size_bytes ?? 0) > 1_000_000, `size ${snapshot.database_size_bytes}`);
  for (const usage of [metrics.cpu_usage, metrics.memory_usage, metrics.disk_usage]) {
    t.ok(usage !== null && usage >= 0 && usage <= 100, `usage ${usage} is a percentage`);
  }
  const { active, idle, total, max } = metrics.connections;
  t.ok([active, idle, total, max].every(Number.isInteger), JSON.stringify(metrics.connections));
  t.equal((active ?? 0) + (idle ?? 0), total);
  t.ok((max ?? 0) >= 1);
  t.ok((metrics.throughput.transactions_per_second ?? 0) > 0, `TPS ${metrics.throughput.transactions_per_second}`);
  t.ok((metrics.throughput.queries_per_second ?? 0) > 0, `QPS ${metrics.throughput.queries_per_second}`);
  const { avg_query_time_ms: avg, p95_query_time_ms: p95, p99_query_time_ms: p99 } = metrics.latency;
  t.equal(metrics.latency.source, 'estimate');
  t.ok((avg ?? 0) > 0 && (p95 ?? 0) >= (avg ?? 0) && (p99 ?? 0) >= (p95 ?? 0), JSON.stringify(metrics.latency));
  for (const counter of ['xact_commit', 'xact_rollback', 'blks_hit', 'blks_read', 'tup_inserted', 'tup_returned']) {
    t.type(snapshot.counters[`pg_stat_database_${counter}{datid="${datid}",datname="${database.name}"}`], 'number', counter);
  }
  t.ok(snapshot.collectors.every((outcome) => outcome.success), JSON.stringify(snapshot.collectors));
  const insert = snapshot.statements?.find((statement) => statement.query.startsWith('INSERT INTO notes'));
  t.match(insert, { calls: 50, rows: 50, query: 'INSERT INTO notes (body) VALUES ($1)' });
  t.ok((insert?.total_time_ms ?? 0) > 0);
  t.notOk(snapshot.statements?.some((statement) => statement.query.includes('/* dbmon */')));
  t.same(JSON.parse(JSON.stringify(snapshot)), snapshot, 'plain JSON');
});
