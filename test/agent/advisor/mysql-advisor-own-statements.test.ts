import { randomBytes } from 'node:crypto';
import t from 'tap';
import { mysqlCollectors } from '../../../agent/collection/collectors/mysql/mysql-collectors.js';
import { MysqlSource } from '../../../agent/sources/mysql-source.js';
import { advisorJobs } from '../../helpers/advisor-jobs.js';
import { collectionRunner } from '../../helpers/collection-under-test.js';
import { createThrowawayMysqlDatabase } from '../../helpers/throwaway-mysql-database.js';

// The agent's user may read performance_schema but not update performance_schema.threads, so it
// cannot switch off the instrumentation of its own sessions: what the advisor runs must still
// stay out of the monitored database's statements, query rate and latency.

const database = await createThrowawayMysqlDatabase();
const agentUser = `dbmon_agent_${randomBytes(4).toString('hex')}`;
const agentPassword = randomBytes(12).toString('hex');
await database.admin(`CREATE USER '${agentUser}'@'%' IDENTIFIED BY '${agentPassword}'`);
for (const grant of ['PROCESS ON *.*', 'SELECT ON performance_schema.*', `SELECT, UPDATE, ALTER ON \`${database.name}\`.*`]) {
  await database.admin(`GRANT ${grant} TO '${agentUser}'@'%'`);
}
const agentSettings = { ...database.settings, username: agentUser, password: agentPassword };
const source = new MysqlSource(agentSettings, { statementTimeoutMs: 5000, connectTimeoutMs: 5000 });
t.teardown(async () => {
  await source.close();
  await database.admin(`DROP USER '${agentUser}'@'%'`);
  await database.drop();
});

const client = await database.connect();
await client.query('CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL, status varchar(10) NOT NULL) ENGINE=InnoDB');
await client.query(`INSERT INTO orders SELECT seq, seq % 5000, IF(seq % 100 = 0, 'open', 'closed') FROM seq_1_to_20000`);
await client.query('ANALYZE TABLE orders');

const { analyze, apply } = advisorJobs({ id: 'db_mysqlownstatements0000', name: 'shop', type: 'mariadb', connection: agentSettings });

t.test("an analysis and an apply leave no statement of the agent's in the database's statements", async (t) => {
  const LOAD = 200;
  const runner = collectionRunner(source, mysqlCollectors);
  const before = await runner.collect();
  t.ok(before.collectors.every((outcome) => outcome.success));

  for (let i = 0; i < LOAD; i++) await client.query('SELECT ?', [i]);
  const query = 'SELECT * FROM `orders` WHERE `customer_id` = ?';
  const analysis = await analyze([query, 'UPDATE `orders` SET `status` = ? WHERE `customer_id` = ?'], { indexHygiene: true });
  t.same(
    analysis.statements.map((statement) => statement.outcome),
    ['suggestion', 'suggestion'],
    JSON.stringify(analysis.statements),
  );
  const applied = await apply('create_index', analysis.suggestions[0]!.target, {}, query);
  t.equal(applied.outcome, 'applied', JSON.stringify(applied));
  t.equal(applied.evidence?.uses_index, true, 'the plan after the apply was taken');

  const snapshot = await runner.collect();
  t.ok(snapshot.collectors.every((outcome) => outcome.success), JSON.stringify(snapshot.collectors));
  t.same(
    (snapshot.statements ?? []).map((statement) => [statement.query, statement.calls]),
    [['SELECT ? ', LOAD]],
    "the database's statements are the application's alone",
  );
  // A rate is over the interval between the samples' times, those of the counters' reads.
  const seconds = (Date.parse(snapshot.timestamp) - Date.parse(before.timestamp)) / 1000;
  const qps = snapshot.metrics.throughput.queries_per_second ?? NaN;
  t.ok(Math.abs(qps * seconds - LOAD) / LOAD < 0.01, `QPS ${qps} over ${seconds} s: ${LOAD} statements`);
  t.equal(snapshot.metrics.throughput.transactions_per_second, 0, "the analysis's rolled back transactions are not the database's");
});

t.test('a job on a database that does not exist, or that the user may not use, fails saying so', async (t) => {
  for (const name of [`${database.name}_missing`, 'mysql']) {
    const jobs = advisorJobs({ id: 'db_mysqlownstatements0001', name: 'other', type: 'mariadb', connection: { ...agentSettings, database: name } });
    t.match(await jobs.analyze(['SELECT 1']), { outcome: 'failed', error: `database '${name}' does not exist, or user '${agentUser}' has no privilege on it` });
  }
});
