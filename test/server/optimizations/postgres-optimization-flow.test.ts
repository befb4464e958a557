import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import t from 'tap';
import { postgresCollectors } from '../../../agent/collection/collectors/postgres/postgres-collectors.js';
import { PostgresSource } from '../../../agent/sources/postgres-source.js';
import { startOptimizationFlow } from '../../helpers/optimization-flow.js';
import { createThrowawayPostgresDatabase } from '../../helpers/throwaway-postgres-database.js';

const run = promisify(execFile);

const database = await createThrowawayPostgresDatabase();
const flow = await startOptimizationFlow({
  name: 'pg',
  type: 'postgresql',
  connection: { host: database.settings.host, port: database.settings.port, database: database.name, username: 'postgres' },
  source: new PostgresSource(database.settings, { statementTimeoutMs: 10_000, connectTimeoutMs: 5000 }),
  collectors: postgresCollectors,
});
t.teardown(async () => {
  await flow.close();
  await database.drop();
});
const { server, tenant, databaseId, collectAndPost, jobs, get, optimize } = flow;

const client = await database.connect();
await client.query(`CREATE TABLE orders (id bigserial PRIMARY KEY, customer_id integer NOT NULL, status text NOT NULL, total numeric NOT NULL)`);
await client.query(
  `INSERT INTO orders (customer_id, status, total) SELECT i % 20000, CASE WHEN i % 10 = 0 THEN 'open' ELSE 'closed' END, i % 997 FROM generate_series(1, 200000) i`,
);
await client.query('CREATE TABLE customers (id integer PRIMARY KEY, email text NOT NULL, region integer NOT NULL)');
await client.query(`INSERT INTO customers SELECT i, 'c' || i || '@example.test', i % 50 FROM generate_series(1, 50000) i`);
await client.query('CREATE INDEX customers_email_idx ON customers (email)');
// Two identical indexes: the analysis reports the second as a drop_index suggestion of its own.
await client.query('CREATE INDEX customers_region_idx ON customers (region)');
await client.query('CREATE INDEX customers_region_idx2 ON customers (region)');
await client.query('ANALYZE orders');
await client.query('ANALYZE customers');

const slowQuery = 'SELECT id, total FROM orders WHERE customer_id = $1';
const indexedQuery = 'SELECT id, region FROM customers WHERE email = $1';
async function runStatements(times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    await client.query(slowQuery, [i * 7]);
    await client.query(indexedQuery, [`c${i}@example.test`]);
  }
}

await collectAndPost();
await runStatements(25);
await collectAndPost();

const list = await server.request('GET', `/v1/databases/${databaseId}/queries?sort=total_time&limit=50`, { key: tenant.key });
const slow = list.body.data.find((query: { query: string }) => query.query === slowQuery);
const indexed = list.body.data.find((query: { query: string }) => query.query === indexedQuery);

t.test('the slow statement is listed with its calls over the range', async (t) => {
  t.equal(list.status, 200);
  t.ok(slow, JSON.stringify(list.body.data.map((query: { query: string }) => query.query)));
  t.match(slow.id, /^query_[0-9A-Za-z]{22}$/);
  t.equal(slow.calls, 25);
  t.ok(slow.mean_time_ms > 0);
  t.equal(list.body.data[0].id, slow.id, 'the full scans take the most time');
  t.equal(indexed.calls, 25);
  t.notOk(list.body.data.some((query: { query: string }) => query.query.includes('dbmon')), "the agent's own statements are left out");
});

let optimizationId = '';

t.test('optimize: hypothetical indexes find the index on the filtered column', async (t) => {
  const requested = await optimize(slow.id);
  t.equal(requested.status, 'pending');
  t.equal(requested.query_id, slow.id);
  optimizationId = requested.id;
  t.equal(await jobs.runOnce(), 1, 'one analysis job');
  const ready = await get(optimizationId);
  t.equal(ready.status, 'ready', ready.error ?? ready.summary);
  t.equal(ready.kind, 'create_index');
  t.equal(ready.statement, 'CREATE INDEX CONCURRENTLY "orders_customer_id_idx" ON "public"."orders" ("customer_id")');
  t.ok(ready.estimated_improvement_pct >= 50, `improvement ${ready.estimated_improvement_pct} %`);
  t.ok(ready.cost_after < ready.cost_before);
  t.equal(ready.confidence, 'high');
  t.equal(ready.evidence.method, 'hypopg');
  t.equal(ready.evidence.hypopg, 'created_for_analysis', 'hypopg was created inside the rolled-back transaction');
  t.match(ready.evidence.plan_before, /Seq Scan on public\.orders/);
  t.match(ready.evidence.plan_after, /btree_orders_customer_id/);
  const extensions = await client.query("SELECT 1 FROM pg_extension WHERE extname = 'hypopg'");
  t.equal(extensions.rowCount, 0, 'nothing of the analysis stays behind');
  const siblings = await server.request('GET', `/v1/optimizations?database_id=${databaseId}&status=ready`, { key: tenant.key });
  const duplicate = siblings.body.data.find((row: { kind: string }) => row.kind === 'drop_index');
  t.equal(duplicate?.statement, 'DROP INDEX CONCURRENTLY "public"."customers_region_idx2"');
  t.equal(duplicate?.parent_id, optimizationId);
});

t.test('apply builds the index concurrently while pgbench writes; a second apply is refused', async (t) => {
  const connection = ['-h', database.settings.host, '-p', String(database.settings.port), '-U', 'postgres'];
  await run('/usr/bin/pgbench', ['-i', '-q', '-s', '1', ...connection, database.name]);
  const bench = run('/usr/bin/pgbench', ['-n', '-c', '2', '-T', '10', ...connection, database.name]);
  // A writer on the very table being indexed, besides pgbench on its own tables.
  const writer = await database.connect();
  let writing = true;
  let slowestInsertMs = 0;
  let inserts = 0;
  const inserting = (async () => {
    while (writing) {
      const started = Date.now();
      await writer.query("INSERT INTO orders (customer_id, status, total) VALUES (999999, 'open', 1)");
      slowestInsertMs = Math.max(slowestInsertMs, Date.now() - started);
      inserts++;
    }
  })();
  const blocked: string[] = [];
  let watching = true;
  const watcher = (async () => {
    const observer = await database.connect();
    while (watching) {
      // pgbench's own clients wait on each other (one branch row at scale 1); what matters is that nobody waits on dbmon.
      const { rows } = await observer.query(
        `SELECT a.pid, a.application_name, a.query FROM pg_stat_activity a
          WHERE a.datname = $1 AND EXISTS (SELECT 1 FROM pg_stat_activity b WHERE b.pid = ANY (pg_blocking_pids(a.pid)) AND b.application_name = 'dbmon')`,
        [database.name],
      );
      blocked.push(...rows.map((row) => JSON.stringify(row)));
      await sleep(25);
    }
  })();
  await sleep(1500);

  const applying = await server.request('POST', `/v1/optimizations/${optimizationId}/apply`, { key: tenant.key });
  t.equal(applying.status, 202);
  t.equal(applying.body.status, 'applying');
  const again = await server.request('POST', `/v1/optimizations/${optimizationId}/apply`, { key: tenant.key });
  t.equal(again.status, 409);
  t.equal(again.body.error.code, 'already_applied');
  t.equal(await jobs.runOnce(), 1, 'one apply job');

  const { stdout } = await bench;
  writing = false;
  watching = false;
  await inserting;
  await watcher;
  t.match(stdout, /number of failed transactions: 0 /, 'pgbench saw no errors');
  t.same(blocked, [], 'no session waited on a lock held by the index build');
  t.ok(inserts > 10 && slowestInsertMs < 2000, `${inserts} inserts into the indexed table, the slowest took ${slowestInsertMs} ms`);

  const applied = await get(optimizationId);
  t.equal(applied.status, 'applied', applied.error);
  t.ok(applied.applied_at);
  t.ok(applied.cost_after_apply < applied.cost_before, `cost ${applied.cost_before} before, ${applied.cost_after_apply} after applying`);
  t.equal(applied.evidence.apply.uses_index, true);
  const valid = await client.query("SELECT indisvalid FROM pg_index WHERE indexrelid = 'orders_customer_id_idx'::regclass");
  t.equal(valid.rows[0]?.indisvalid, true, 'the index exists and is valid');
  const plan = await client.query('EXPLAIN SELECT id, total FROM orders WHERE customer_id = 42');
  t.match(plan.rows.map((row) => row['QUERY PLAN']).join('\n'), /orders_customer_id_idx/, 'the plan uses it');
  const third = await server.request('POST', `/v1/optimizations/${optimizationId}/apply`, { key: tenant.key });
  t.equal(third.status, 409);
  t.equal(third.body.error.code, 'already_applied');
});

t.test('the measured mean time after applying is lower than before', async (t) => {
  await collectAndPost(); // the interval that straddles the apply ends here
  await runStatements(25);
  await collectAndPost();
  const measured = await get(optimizationId);
  t.ok(measured.measured_mean_time_ms_before > 0, `before ${measured.measured_mean_time_ms_before} ms`);
  t.ok(measured.measured_mean_time_ms_after > 0, `after ${measured.measured_mean_time_ms_after} ms`);
  t.ok(measured.measured_mean_time_ms_after < measured.measured_mean_time_ms_before);
});

t.test('a statement already served by an index ends no_suggestion', async (t) => {
  const requested = await optimize(indexed.id);
  await jobs.runOnce();
  const done = await get(requested.id);
  t.equal(done.status, 'no_suggestion');
  t.match(done.summary, /customers_email_idx/);
  t.equal(done.statement, null);
});

t.test('a text with a second statement, or a utility statement, is refused and nothing runs', async (t) => {
  const forged = [
    { query_id_source: '-4242', query: 'SELECT id FROM orders WHERE id = $1; DROP TABLE orders', calls: 3, total_time_ms: 900, max_time_ms: 400, rows: 3 },
    { query_id_source: '-4343', query: 'DROP TABLE orders', calls: 1, total_time_ms: 1, max_time_ms: 1, rows: 0 },
  ];
  await collectAndPost(forged);
  const queries = (await server.request('GET', `/v1/databases/${databaseId}/queries?limit=100`, { key: tenant.key })).body.data;
  for (const text of forged.map((statement) => statement.query)) {
    const query = queries.find((candidate: { query: string }) => candidate.query === text);
    const requested = await optimize(query.id);
    await jobs.runOnce();
    const done = await get(requested.id);
    t.equal(done.status, 'failed', text);
    t.match(done.error, /^Refused: /);
  }
  const count = await client.query('SELECT count(*)::int AS n FROM orders');
  t.ok(count.rows[0].n >= 200_000, 'orders is still there');
});
