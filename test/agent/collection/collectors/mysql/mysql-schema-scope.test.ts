import { randomBytes } from 'node:crypto';
import t from 'tap';
import { mysqlCollectors } from '../../../../../agent/collection/collectors/mysql/mysql-collectors.js';
import { MysqlSource } from '../../../../../agent/sources/mysql-source.js';
import { collectionRunner } from '../../../../helpers/collection-under-test.js';
import { createThrowawayMysqlDatabase } from '../../../../helpers/throwaway-mysql-database.js';

// Two databases on the same MariaDB, watched by an agent user that may read performance_schema
// but not update performance_schema.threads (so it cannot switch off its own instrumentation).

const loaded = await createThrowawayMysqlDatabase();
const idle = await createThrowawayMysqlDatabase();
const agentUser = `dbmon_agent_${randomBytes(4).toString('hex')}`;
const agentPassword = randomBytes(12).toString('hex');
await loaded.admin(`CREATE USER '${agentUser}'@'%' IDENTIFIED BY '${agentPassword}'`);
for (const grant of [
  'PROCESS ON *.*',
  'SELECT ON performance_schema.*',
  `SELECT ON \`${loaded.name}\`.*`,
  `SELECT ON \`${idle.name}\`.*`,
]) {
  await loaded.admin(`GRANT ${grant} TO '${agentUser}'@'%'`);
}
const sources: MysqlSource[] = [];
const agentSourceOn = (database: typeof loaded): MysqlSource => {
  const source = new MysqlSource(
    { ...database.settings, username: agentUser, password: agentPassword },
    { statementTimeoutMs: 5000, connectTimeoutMs: 5000 },
  );
  sources.push(source);
  return source;
};
t.teardown(async () => {
  await Promise.all(sources.map((source) => source.close()));
  await loaded.admin(`DROP USER '${agentUser}'@'%'`);
  await Promise.all([loaded.drop(), idle.drop()]);
});

const loadedSource = agentSourceOn(loaded);
const idleSource = agentSourceOn(idle);
const client = await loaded.connect();
await client.query('CREATE TABLE notes (id int AUTO_INCREMENT PRIMARY KEY, body varchar(100)) ENGINE=InnoDB');

t.test('QPS, TPS and latency are those of the monitored database alone', async (t) => {
  const SELECTS = 3000;
  const TRANSACTIONS = 100;
  const AUTOCOMMITTED = 50;
  const loadedRunner = collectionRunner(loadedSource, mysqlCollectors);
  const idleRunner = collectionRunner(idleSource, mysqlCollectors);
  const started = new Date();
  const before = await loadedRunner.collect(started);
  await idleRunner.collect(started);
  // The agent's next cycle reconnects, so its connection set-up falls within the measured interval.
  const [agent] = await loadedSource.query('SELECT CONNECTION_ID() AS id', [], AbortSignal.timeout(5000));
  await loaded.admin(`KILL ${Number(agent?.id)}`);

  for (let i = 0; i < SELECTS; i++) await client.query('SELECT ?', [i]);
  for (let i = 0; i < TRANSACTIONS; i++) {
    await client.query('BEGIN');
    await client.query('INSERT INTO notes (body) VALUES (?)', ['in a transaction']);
    await client.query('COMMIT');
  }
  for (let i = 0; i < AUTOCOMMITTED; i++) await client.query('INSERT INTO notes (body) VALUES (?)', ['autocommitted']);

  const ended = new Date();
  const busy = await loadedRunner.collect(ended);
  const quiet = await idleRunner.collect(ended);
  // A rate is over the interval between the samples' times, those of the counters' reads.
  const seconds = (Date.parse(busy.timestamp) - Date.parse(before.timestamp)) / 1000;

  t.ok(busy.collectors.every((outcome) => outcome.success), JSON.stringify(busy.collectors));
  t.ok(quiet.collectors.every((outcome) => outcome.success), JSON.stringify(quiet.collectors));
  t.equal(quiet.metrics.throughput.queries_per_second, 0, 'the idle database ran no statement');
  t.equal(quiet.metrics.throughput.transactions_per_second, 0);
  t.same(quiet.metrics.latency, {
    avg_query_time_ms: null,
    p95_query_time_ms: null,
    p99_query_time_ms: null,
    source: null,
    note: 'performance_schema has no statement digests for this database yet',
  });

  const statementsSent = SELECTS + 3 * TRANSACTIONS + AUTOCOMMITTED;
  const qps = busy.metrics.throughput.queries_per_second ?? NaN;
  t.ok(Math.abs(qps * seconds - statementsSent) / statementsSent < 0.01, `QPS ${qps} over ${seconds} s: ${statementsSent} statements`);
  const tps = busy.metrics.throughput.transactions_per_second ?? NaN;
  t.ok(Math.abs(tps * seconds - TRANSACTIONS) < 0.5, `TPS ${tps} over ${seconds} s: ${TRANSACTIONS} COMMITs`);
  const { avg_query_time_ms: avg, p95_query_time_ms: p95, p99_query_time_ms: p99, source } = busy.metrics.latency;
  t.equal(source, 'estimate', 'MariaDB keeps no latency histogram per schema');
  t.ok((avg ?? 0) > 0 && (p95 ?? 0) >= (avg ?? 0) && (p99 ?? 0) >= (p95 ?? 0), JSON.stringify(busy.metrics.latency));
  t.ok(busy.counters.mysql_global_status_questions! > 0, 'server-wide counters stay as exporter counters');

  const calls = (busy.statements ?? []).reduce((sum, statement) => sum + statement.calls, 0);
  t.equal(calls, statementsSent, 'the statements are exactly the load');
  t.notOk(
    busy.statements?.find((statement) => /performance_schema|information_schema|@@|VERSION|max_statement_time|CONNECTION_ID/i.test(statement.query)),
    "the agent's own statements are not among the database's",
  );
});

t.test('a database that does not exist, or that the user may not use, is unreachable', async (t) => {
  for (const database of [`${loaded.name}_missing`, 'mysql']) {
    const source = agentSourceOn({ ...loaded, settings: { ...loaded.settings, database } });
    const snapshot = await collectionRunner(source, mysqlCollectors).collect();
    t.equal(snapshot.reachable, false, database);
    t.match(snapshot.error, database);
  }
});
