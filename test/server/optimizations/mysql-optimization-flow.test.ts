import t from 'tap';
import { mysqlCollectors } from '../../../agent/collection/collectors/mysql/mysql-collectors.js';
import { MysqlSource } from '../../../agent/sources/mysql-source.js';
import { startOptimizationFlow } from '../../helpers/optimization-flow.js';
import { createThrowawayMysqlDatabase } from '../../helpers/throwaway-mysql-database.js';

const database = await createThrowawayMysqlDatabase();
const flow = await startOptimizationFlow({
  name: 'maria',
  type: 'mariadb',
  connection: { host: database.settings.host, port: database.settings.port, database: database.name, username: 'root', password: '' },
  source: new MysqlSource(database.settings, { statementTimeoutMs: 10_000, connectTimeoutMs: 5000 }),
  collectors: mysqlCollectors,
});
t.teardown(async () => {
  await flow.close();
  await database.drop();
});
const { server, tenant, databaseId, collectAndPost, jobs, get, optimize } = flow;

const client = await database.connect();
await client.query('CREATE TABLE orders (id bigint AUTO_INCREMENT PRIMARY KEY, customer_id int NOT NULL, status varchar(10) NOT NULL, total decimal(10,2) NOT NULL) ENGINE=InnoDB');
await client.query(`INSERT INTO orders (customer_id, status, total) SELECT seq % 20000, IF(seq % 10 = 0, 'open', 'closed'), seq % 997 FROM seq_1_to_200000`);
await client.query('CREATE TABLE customers (id int PRIMARY KEY, email varchar(100) NOT NULL, region int NOT NULL, KEY customers_email_idx (email)) ENGINE=InnoDB');
await client.query(`INSERT INTO customers SELECT seq, CONCAT('c', seq, '@example.test'), seq % 50 FROM seq_1_to_50000`);
await client.query('CREATE INDEX customers_region_idx ON customers (region)');
await client.query('CREATE INDEX customers_region_idx2 ON customers (region)');
await client.query('ANALYZE TABLE orders, customers');

// MariaDB's digest prints `id` as the keyword ID: the text is matched by its tail.
const slowDigest = /^SELECT \S+ , `total` FROM `orders` WHERE `customer_id` = \?\s*$/;
const indexedDigest = /^SELECT \S+ , `region` FROM `customers` WHERE `email` = \?\s*$/;
async function runStatements(times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    await client.query('SELECT id, total FROM orders WHERE customer_id = ?', [i * 7]);
    await client.query('SELECT id, region FROM customers WHERE email = ?', [`c${i}@example.test`]);
  }
}

await collectAndPost();
await runStatements(20);
await collectAndPost();
const listed = (await server.request('GET', `/v1/databases/${databaseId}/queries?limit=50`, { key: tenant.key })).body.data;
const find = (text: RegExp) => listed.find((query: { query: string }) => text.test(query.query));
const slow = find(slowDigest);
const indexed = find(indexedDigest);
let optimizationId = '';

t.test('the full-scan digest is listed with its calls', async (t) => {
  t.ok(slow, JSON.stringify(listed.map((query: { query: string }) => query.query)));
  t.equal(slow.calls, 20);
  t.match(slow.fingerprint, /^[0-9a-f]{32,64}$/, 'the digest');
  t.equal(indexed?.calls, 20);
});

t.test('optimize: a full scan with an equality condition gets an index, estimated from cardinality', async (t) => {
  optimizationId = (await optimize(slow.id)).id;
  t.equal(await jobs.runOnce(), 1);
  const ready = await get(optimizationId);
  t.equal(ready.status, 'ready', ready.error ?? ready.summary);
  t.equal(ready.kind, 'create_index');
  t.equal(ready.statement, `ALTER TABLE \`${database.name}\`.\`orders\` ADD INDEX \`orders_customer_id_idx\` (\`customer_id\`), ALGORITHM=INPLACE, LOCK=NONE`);
  t.ok(ready.estimated_improvement_pct >= 50, `improvement ${ready.estimated_improvement_pct} %`);
  t.equal(ready.confidence, 'medium');
  t.equal(ready.evidence.method, 'cardinality_estimate');
  t.equal(ready.evidence.cost_unit, 'rows_examined');
  t.match(ready.summary, /Estimate: MariaDB cannot EXPLAIN with a trial index/);
  t.match(ready.evidence.plan_before, /"access_type": "ALL"/);
  const all = await server.request('GET', `/v1/optimizations?database_id=${databaseId}`, { key: tenant.key });
  const duplicate = all.body.data.find((row: { kind: string }) => row.kind === 'drop_index');
  t.match(duplicate?.statement, /DROP INDEX `customers_region_idx2`, ALGORITHM=INPLACE, LOCK=NONE$/);
});

t.test('apply adds the index online while writes go on; a second apply is refused', async (t) => {
  const writer = await database.connect();
  let writing = true;
  let slowestInsertMs = 0;
  let inserts = 0;
  let errors = 0;
  const inserting = (async () => {
    while (writing) {
      const started = Date.now();
      await writer.query("INSERT INTO orders (customer_id, status, total) VALUES (999999, 'open', 1)").catch(() => errors++);
      slowestInsertMs = Math.max(slowestInsertMs, Date.now() - started);
      inserts++;
    }
  })();
  const applying = await server.request('POST', `/v1/optimizations/${optimizationId}/apply`, { key: tenant.key });
  t.equal(applying.status, 202);
  const again = await server.request('POST', `/v1/optimizations/${optimizationId}/apply`, { key: tenant.key });
  t.equal(again.status, 409);
  t.equal(again.body.error.code, 'already_applied');
  t.equal(await jobs.runOnce(), 1);
  writing = false;
  await inserting;
  t.equal(errors, 0, 'no insert failed');
  t.ok(inserts > 10 && slowestInsertMs < 2000, `${inserts} inserts during the build, the slowest took ${slowestInsertMs} ms`);
  const applied = await get(optimizationId);
  t.equal(applied.status, 'applied', applied.error);
  t.equal(applied.evidence.apply.uses_index, true);
  t.ok(applied.cost_after_apply < applied.cost_before, `rows examined ${applied.cost_before} before, ${applied.cost_after_apply} after`);
  const [index] = await database.admin(
    "SELECT COUNT(*) AS n FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'orders' AND INDEX_NAME = 'orders_customer_id_idx'",
    [database.name],
  );
  t.equal(Number(index?.n), 1, 'the index exists');
  const [plan] = await client.query('EXPLAIN SELECT id, total FROM orders WHERE customer_id = 42');
  t.equal((plan as Array<{ key: string }>)[0]?.key, 'orders_customer_id_idx', 'the plan uses it');
  const third = await server.request('POST', `/v1/optimizations/${optimizationId}/apply`, { key: tenant.key });
  t.equal(third.body.error.code, 'already_applied');
});

t.test('the measured mean time after applying is lower than before', async (t) => {
  await collectAndPost();
  await runStatements(20);
  await collectAndPost();
  const measured = await get(optimizationId);
  t.ok(measured.measured_mean_time_ms_after < measured.measured_mean_time_ms_before, `${measured.measured_mean_time_ms_before} ms before, ${measured.measured_mean_time_ms_after} ms after`);
  t.ok(measured.measured_mean_time_ms_after > 0);
});

t.test('a statement already served by an index ends no_suggestion', async (t) => {
  const requested = await optimize(indexed.id);
  await jobs.runOnce();
  const done = await get(requested.id);
  t.equal(done.status, 'no_suggestion');
  t.match(done.summary, /customers_email_idx/);
});

t.test('a digest with a second statement is refused and nothing is dropped', async (t) => {
  await collectAndPost([
    { query_id_source: 'f00dfeed', query: 'SELECT `id` FROM `orders` WHERE `id` = ? ; DROP TABLE `orders`', calls: 2, total_time_ms: 50, max_time_ms: 40, rows: 2 },
  ]);
  const queries = (await server.request('GET', `/v1/databases/${databaseId}/queries?limit=100`, { key: tenant.key })).body.data;
  const forged = queries.find((query: { fingerprint: string }) => query.fingerprint === 'f00dfeed');
  const requested = await optimize(forged.id);
  await jobs.runOnce();
  const done = await get(requested.id);
  t.equal(done.status, 'failed');
  t.match(done.error, /^Refused: the text holds more than one statement/);
  const [count] = await database.admin(`SELECT COUNT(*) AS n FROM \`${database.name}\`.orders`);
  t.ok(Number(count?.n) >= 200_000, 'orders is still there');
});
