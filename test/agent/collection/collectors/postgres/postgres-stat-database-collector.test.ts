import t from 'tap';
import { postgresCollectors } from '../../../../../agent/collection/collectors/postgres/postgres-collectors.js';
import { collectionRunner, postgresSourceOn } from '../../../../helpers/collection-under-test.js';
import { createThrowawayPostgresDatabase } from '../../../../helpers/throwaway-postgres-database.js';
import { waitUntil } from '../../../../helpers/wait-until.js';

const TRANSACTIONS = 400;

const database = await createThrowawayPostgresDatabase();
const source = postgresSourceOn(t, database);
const runner = collectionRunner(source, postgresCollectors);

const committed = async (): Promise<number> => {
  const { rows } = await database.admin('SELECT xact_commit::int AS n FROM pg_stat_database WHERE datname = $1', [
    database.name,
  ]);
  return Number(rows[0]?.n);
};

t.test('TPS and QPS match a known number of transactions', async (t) => {
  const setup = await database.connect();
  await setup.query('CREATE TABLE items (id serial PRIMARY KEY, n int)');
  await setup.end();

  const first = new Date();
  const initial = await runner.collect(first);
  t.equal(initial.metrics.throughput.transactions_per_second, null, 'no rate on the first cycle');
  const baseline = await committed();

  const load = await database.connect();
  for (let i = 0; i < TRANSACTIONS; i++) {
    await load.query('BEGIN');
    await load.query('INSERT INTO items (n) VALUES ($1)', [i]);
    await load.query('COMMIT');
  }
  // A backend reports its counters when it exits (or when idle, at most once a second).
  await load.end();
  await waitUntil('the load reported to pg_stat_database', async () => (await committed()) >= baseline + TRANSACTIONS);

  const second = new Date();
  const snapshot = await runner.collect(second);
  const seconds = (second.getTime() - first.getTime()) / 1000;
  const tps = snapshot.metrics.throughput.transactions_per_second ?? NaN;
  const qps = snapshot.metrics.throughput.queries_per_second ?? NaN;
  t.ok(Math.abs(tps - TRANSACTIONS / seconds) / (TRANSACTIONS / seconds) < 0.15, `TPS ${tps} vs ${TRANSACTIONS / seconds}`);
  // BEGIN, INSERT and COMMIT each count as a statement in pg_stat_statements.
  const statements = 3 * TRANSACTIONS;
  t.ok(Math.abs(qps - statements / seconds) / (statements / seconds) < 0.15, `QPS ${qps} vs ${statements / seconds}`);
  t.ok(
    (Object.entries(snapshot.counters).find(([key]) => key.startsWith(`pg_stat_database_xact_commit{datid=`) && key.endsWith(`,datname="${database.name}"}`))?.[1] ?? 0) >=
      baseline + TRANSACTIONS,
    'the raw counter is exported as it is',
  );
});
