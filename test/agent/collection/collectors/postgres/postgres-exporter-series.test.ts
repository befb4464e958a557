import t from 'tap';
import { pgLockModes } from '../../../../../common/exporter-catalog.js';
import { createPostgresCollectors, postgresCollectors } from '../../../../../agent/collection/collectors/postgres/postgres-collectors.js';
import { collectionRunner, postgresSourceOn } from '../../../../helpers/collection-under-test.js';
import { createThrowawayPostgresDatabase } from '../../../../helpers/throwaway-postgres-database.js';

const database = await createThrowawayPostgresDatabase();
const source = postgresSourceOn(t, database);

t.test("postgres_exporter's series from the real engine: states, locks, bgwriter, start time, replication", async (t) => {
  const holder = await database.connect();
  t.teardown(() => holder.end());
  await holder.query('CREATE TABLE stock (id int)');
  await holder.query('BEGIN');
  await holder.query('LOCK TABLE stock IN EXCLUSIVE MODE');

  // The server-wide buffer count moves with every other test's work: read before and after the collection.
  const allocated = async () => Number((await database.admin('SELECT buffers_alloc FROM pg_stat_bgwriter')).rows[0]!.buffers_alloc);
  const allocatedBefore = await allocated();
  const snapshot = await collectionRunner(source, postgresCollectors).collect();
  const allocatedAfter = await allocated();
  t.ok(snapshot.collectors.every((outcome) => outcome.success), JSON.stringify(snapshot.collectors));
  const { counters } = snapshot;
  const datname = database.name;

  t.equal(counters[`pg_stat_activity_count{datname="${datname}",state="idle in transaction"}`], 1, 'the session holding the lock');
  t.ok((counters[`pg_stat_activity_max_tx_duration{datname="${datname}",state="idle in transaction"}`] ?? 0) > 0);
  t.equal(counters[`pg_stat_activity_count{datname="${datname}",state="fastpath function call"}`], 0, 'every state is listed');
  for (const mode of pgLockModes) t.type(counters[`pg_locks_count{datname="${datname}",mode="${mode}"}`], 'number', mode);
  t.ok((counters[`pg_locks_count{datname="${datname}",mode="exclusivelock"}`] ?? 0) >= 1, 'the lock held is counted');

  const { rows } = await database.admin(
    `SELECT current_setting('server_version_num')::int AS version_num, extract(epoch FROM pg_postmaster_start_time()) AS started`,
  );
  const { version_num, started } = rows[0] as { version_num: number; started: string };
  t.equal(counters.pg_postmaster_start_time_seconds, Number(started));
  const collected = counters.pg_stat_bgwriter_buffers_alloc_total ?? -1;
  t.ok(collected >= allocatedBefore && collected <= allocatedAfter, `buffers_alloc ${collected} within ${allocatedBefore}..${allocatedAfter}`);
  const checkpointer = Object.keys(counters).filter((key) => key.startsWith('pg_stat_checkpointer_'));
  const bgwriter = Object.keys(counters).filter((key) => key.startsWith('pg_stat_bgwriter_'));
  if (version_num >= 170_000) t.same([bgwriter.length, checkpointer.length], [3, 5]);
  else t.same([bgwriter.length, checkpointer.length], [10, 0]);
  const statements = Object.keys(counters).filter((key) => key.startsWith('pg_stat_statements_calls_total{'));
  t.ok(statements.length > 0 && statements.length <= 100, `${statements.length} statements, the top 100 at most`);
  t.ok(statements.every((key) => key.includes(`datname="${datname}"`) && /user="[^"]+"/.test(key)));
  t.equal(counters.pg_replication_is_replica, 0, 'a standalone server is no replica');
  t.equal(counters.pg_replication_lag, 0);
  await holder.query('ROLLBACK');
});

t.test('the limits: only the largest tables and the statements that took the most time have series of their own', async (t) => {
  const client = await database.connect();
  t.teardown(() => client.end());
  await client.query('CREATE TABLE big AS SELECT g AS id FROM generate_series(1, 20000) g');
  await client.query('CREATE TABLE small (id int)');
  await client.query('INSERT INTO small VALUES (1)');
  await client.query('VACUUM ANALYZE big');
  await client.query('VACUUM ANALYZE small');

  const snapshot = await collectionRunner(source, createPostgresCollectors({ topStatements: 2, largestTables: 1 })).collect();
  const keys = Object.keys(snapshot.counters);
  const tables = new Set(keys.filter((key) => key.startsWith('pg_stat_user_tables_')).map((key) => /relname="([^"]+)"/.exec(key)?.[1]));
  t.same([...tables], ['big']);
  const statements = keys.filter((key) => key.startsWith('pg_stat_statements_calls_total')).length;
  t.ok(statements >= 1 && statements <= 2, `${statements} statements`);
});
