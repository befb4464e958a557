import pino from 'pino';
import t from 'tap';
import { postgresCollectors } from '../../../../../agent/collection/collectors/postgres/postgres-collectors.js';
import { collectionRunner, postgresSourceOn } from '../../../../helpers/collection-under-test.js';
import { createThrowawayPostgresDatabase } from '../../../../helpers/throwaway-postgres-database.js';

const database = await createThrowawayPostgresDatabase();
const source = postgresSourceOn(t, database);
const newRunner = () =>
  collectionRunner(source, postgresCollectors);
const client = await database.connect();

t.test('before the database has statements, the snapshot says why it has no latency', async (t) => {
  const runner = newRunner();
  const note = 'pg_stat_statements has no statements for this database yet';
  t.equal((await runner.collect()).metrics.latency.note, note, 'first cycle');
  const { metrics } = await runner.collect();
  t.same(metrics.latency, { avg_query_time_ms: null, p95_query_time_ms: null, p99_query_time_ms: null, source: null, note });
  await client.query('SELECT 1');
  const measured = (await runner.collect()).metrics.latency;
  t.equal(measured.source, 'estimate');
  t.notOk('note' in measured, 'a note only while there is no latency');
});

t.test('estimated percentiles put p99 in the slow group', async (t) => {
  const runner = newRunner();
  await runner.collect();
  for (let i = 0; i < 300; i++) await client.query('SELECT 1');
  for (let i = 0; i < 10; i++) await client.query('SELECT pg_sleep(0.05)');
  const { metrics, statements } = await runner.collect();
  const { avg_query_time_ms: avg, p95_query_time_ms: p95, p99_query_time_ms: p99, source: how } = metrics.latency;
  t.equal(how, 'estimate');
  const slow = statements?.find((statement) => statement.query.includes('pg_sleep'));
  t.equal(slow?.calls, 10);
  t.equal(statements?.find((statement) => statement.query === 'SELECT $1')?.calls, 300, 'normalized text');
  t.ok((slow?.total_time_ms ?? 0) >= 500, 'ten sleeps of 50 ms');
  t.ok((avg ?? NaN) > 0, `avg ${avg}`);
  t.ok((p95 ?? NaN) >= (avg ?? NaN), `p95 ${p95} >= avg ${avg}`);
  t.ok((p99 ?? NaN) >= (p95 ?? NaN), `p99 ${p99} >= p95 ${p95}`);
  t.ok((p99 ?? NaN) >= 49 && (p99 ?? NaN) <= 75, `p99 ${p99} among the 50 ms sleeps`);
  t.notOk(
    statements?.some((statement) => statement.query.includes('dbmon')),
    "the agent's own statements are left out",
  );
});

t.test('without the extension only its collector fails, with the reason', async (t) => {
  await client.query('DROP EXTENSION pg_stat_statements');
  const logged: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => logged.push(JSON.parse(line)) });
  const runner = collectionRunner(source, postgresCollectors, logger);
  await runner.collect();
  await client.query('SELECT 1');
  const snapshot = await runner.collect();
  t.match(logged, [{ msg: 'collector failed', collector: 'pg_stat_statements', error: /not installed/ }]);
  t.equal(logged.length, 1, 'a lasting failure is logged once');
  const outcome = (name: string) => snapshot.collectors.find((collector) => collector.name === name);
  t.equal(snapshot.reachable, true);
  t.equal(outcome('pg_stat_statements')?.success, false);
  t.match(outcome('pg_stat_statements')?.error, /pg_stat_statements is not installed in this database/);
  t.ok(
    snapshot.collectors.filter((collector) => collector.name !== 'pg_stat_statements').every((collector) => collector.success),
    'the other collectors work',
  );
  t.not(snapshot.metrics.throughput.transactions_per_second, null, 'TPS still measured');
  t.equal(snapshot.metrics.throughput.queries_per_second, null);
  t.equal(snapshot.metrics.latency.source, null);
  t.match(snapshot.metrics.latency.note, /^pg_stat_statements is not installed in this database/);
  t.equal(snapshot.statements, undefined);
});

t.test('the extension in a schema of its own is found', async (t) => {
  await client.query('CREATE SCHEMA "Stats ""here"""');
  await client.query('CREATE EXTENSION pg_stat_statements SCHEMA "Stats ""here"""');
  const runner = newRunner();
  await runner.collect();
  await client.query('SELECT 2');
  const snapshot = await runner.collect();
  t.ok(snapshot.collectors.every((collector) => collector.success), JSON.stringify(snapshot.collectors));
  t.equal(snapshot.statements?.find((statement) => statement.query === 'SELECT $1')?.calls, 1);
});

t.test('statement texts are read for entries not seen before, not every cycle', async (t) => {
  // The extension is in the schema of the test before; it files the agent's own statements too, marker and all.
  const textReads = async (): Promise<number> => {
    const { rows } = await client.query<{ calls: string }>(
      `SELECT coalesce(sum(calls), 0)::text AS calls FROM "Stats ""here""".pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query LIKE '%queryid = ANY(%'`,
    );
    return Number(rows[0]?.calls);
  };
  const runner = newRunner();
  await runner.collect();
  await client.query('SELECT 3 + 3');
  await textReads(); // its own entry, known from the next cycle on
  await runner.collect();
  const before = await textReads();
  await client.query('SELECT 3 + 3');
  const again = await runner.collect();
  t.equal(await textReads(), before, 'no new entry: no text read');
  t.equal(again.statements?.find((statement) => statement.query === 'SELECT $1 + $2')?.calls, 1, 'a known entry keeps its text');
  await client.query("SELECT 'a new statement'::text");
  const fresh = await runner.collect();
  t.equal(await textReads(), before + 1, 'a new entry: its text read once');
  t.equal(fresh.statements?.find((statement) => statement.query === 'SELECT $1::text')?.calls, 1);
  t.notOk(
    fresh.statements?.some((statement) => statement.query.includes('dbmon')),
    "the agent's own statements are still left out",
  );
});
