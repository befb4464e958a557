import t from 'tap';
import { advisorJobs } from '../../helpers/advisor-jobs.js';
import { createThrowawayPostgresDatabase } from '../../helpers/throwaway-postgres-database.js';

const database = await createThrowawayPostgresDatabase();
t.teardown(() => database.drop());
const client = await database.connect();
await client.query('CREATE TABLE customers (id integer PRIMARY KEY, email text NOT NULL UNIQUE, region integer NOT NULL)');
await client.query(`INSERT INTO customers SELECT i, 'c' || i || '@example.test', i % 50 FROM generate_series(1, 50000) i`);
await client.query('CREATE TABLE orders (id bigserial PRIMARY KEY, customer_id integer NOT NULL, status text NOT NULL)');
await client.query(`INSERT INTO orders (customer_id, status) SELECT i % 50000, CASE WHEN i % 100 = 0 THEN 'open' ELSE 'closed' END FROM generate_series(1, 200000) i`);
await client.query('CREATE TABLE pairs (id bigserial PRIMARY KEY, a integer NOT NULL, b integer NOT NULL, payload text)');
await client.query(`INSERT INTO pairs (a, b, payload) SELECT i % 100, (i / 100) % 100, 'p' FROM generate_series(1, 200000) i`);
await client.query('CREATE INDEX pairs_payload_idx ON pairs (payload)');
await client.query('CREATE INDEX pairs_a_idx ON pairs (a)');
await client.query('CREATE INDEX pairs_a_b_idx ON pairs (a, b)');
await client.query('ANALYZE');

const connection = { ...database.settings, password: null };
const dbInfo = { id: 'db_advisortest0000000000', name: 'advisor', type: 'postgresql' as const, connection };
const { analyze, apply } = advisorJobs(dbInfo);
const indexNames = async (table: string) =>
  (await client.query('SELECT indexrelid::regclass::text AS name, indisvalid FROM pg_index WHERE indrelid = $1::regclass ORDER BY 1', [table])).rows;

t.test('joins: an index on the join column of the scanned table', async (t) => {
  const result = await analyze(['SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.email = $1']);
  t.equal(result.outcome, 'completed');
  const [suggestion] = result.suggestions;
  t.equal(result.statements[0]?.outcome, 'suggestion', result.statements[0]?.detail ?? '');
  t.same(suggestion?.target, { schema: 'public', table: 'orders', index_name: 'orders_customer_id_idx', columns: ['customer_id'] });
  t.match(suggestion?.evidence.plan_before, /Hash Join/);
  t.match(suggestion?.evidence.plan_after, /Nested Loop/);
});

t.test('two columns when the second earns its place', async (t) => {
  await client.query('DROP INDEX pairs_a_idx, pairs_a_b_idx');
  const result = await analyze(['SELECT * FROM pairs WHERE a = $1 AND b = $2']);
  const [suggestion] = result.suggestions;
  t.equal(suggestion?.target.columns.length, 2, JSON.stringify(suggestion?.evidence.candidates));
  t.same([...suggestion!.target.columns].sort(), ['a', 'b']);
  t.ok(suggestion!.estimated_improvement_pct! >= 50);
  const single = (suggestion!.evidence.candidates as Array<{ columns: string[]; cost: number }>).find((candidate) => candidate.columns.length === 1);
  t.ok(single!.cost > suggestion!.cost_after! * 1.1, 'the single-column index costs clearly more');
});

t.test('a candidate covered by an existing index is skipped', async (t) => {
  await client.query('CREATE INDEX pairs_a_b_idx ON pairs (a, b)');
  const result = await analyze(['SELECT * FROM pairs WHERE a = $1 AND b = $2']);
  t.equal(result.statements[0]?.outcome, 'no_suggestion');
  t.match(result.statements[0]?.detail, /pairs_a_b_idx/);
});

t.test('below the threshold there is no suggestion', async (t) => {
  const result = await analyze(['SELECT id FROM orders WHERE status = $1 AND customer_id > $2'], { minImprovementPct: 99.99 });
  t.equal(result.statements[0]?.outcome, 'no_suggestion');
  t.match(result.statements[0]?.detail, /threshold is 99\.99 %/);
});

t.test('without hypopg: a lower-confidence heuristic on selective sequential scans', async (t) => {
  const result = await analyze(['SELECT id FROM orders WHERE customer_id = $1'], { hypopg: 'never' });
  const [suggestion] = result.suggestions;
  t.match(suggestion, { confidence: 'low', cost_after: null, evidence: { method: 'heuristic', hypopg: 'unavailable' } });
  t.same(suggestion?.target.columns, ['customer_id']);
  t.ok(suggestion!.estimated_improvement_pct! >= 50);
  const joinOnly = await analyze(['SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.email = $1'], { hypopg: 'installed' });
  t.equal(joinOnly.statements[0]?.outcome, 'no_suggestion', 'the heuristic proposes nothing for a join-only scan');
  t.match(joinOnly.statements[0]?.detail, /hypopg is not installed/);
});

t.test('refused texts never reach the database', async (t) => {
  const result = await analyze(['SELECT 1; DROP TABLE orders', 'TRUNCATE orders', "SELECT pg_sleep(1) FROM orders WHERE status = 'x' /* ; */"]);
  t.same(result.statements.slice(0, 2).map((statement) => statement.outcome), ['refused', 'refused']);
  t.not(result.statements[2]?.outcome, 'refused', 'a semicolon inside a comment is no second statement');
  t.equal((await client.query('SELECT count(*)::int AS n FROM orders')).rows[0].n, 200_000);
});

t.test('index hygiene: duplicates and, with old enough statistics, unused indexes', async (t) => {
  await client.query('CREATE INDEX pairs_a_idx ON pairs (a)');
  await client.query('CREATE INDEX pairs_a_b_idx2 ON pairs (a, b)');
  const result = await analyze([], { indexHygiene: true, unusedIndexMinStatsAgeMs: 0 });
  const drops = result.suggestions.map((suggestion) => `${suggestion.target.index_name}:${suggestion.evidence.reason}`);
  t.ok(drops.includes('pairs_a_idx:duplicate'), drops.join(' '));
  t.ok(drops.includes('pairs_a_b_idx2:duplicate'), 'of two identical ones, the later name');
  t.notOk(drops.includes('pairs_a_b_idx:duplicate'));
  t.ok(drops.includes('pairs_payload_idx:unused'));
  t.notOk(drops.some((drop) => /pkey|customers_email_key/.test(drop)), 'primary keys and unique constraints never');
  const young = await analyze([], { indexHygiene: true });
  t.notOk(young.suggestions.some((suggestion) => suggestion.evidence.reason === 'unused'), 'statistics younger than a week prove nothing');
  const dropped = await apply('drop_index', { schema: 'public', table: 'pairs', index_name: 'pairs_a_b_idx2', columns: ['a', 'b'] });
  t.equal(dropped.outcome, 'applied');
  t.notOk((await indexNames('pairs')).some((row) => row.name === 'pairs_a_b_idx2'));
});

t.test('apply drops an invalid index a failed build left, then builds', async (t) => {
  await client.query('CREATE UNIQUE INDEX CONCURRENTLY orders_status_idx ON orders (status)').catch(() => undefined);
  t.same((await indexNames('orders')).find((row) => row.name === 'orders_status_idx'), { name: 'orders_status_idx', indisvalid: false });
  const result = await apply('create_index', { schema: 'public', table: 'orders', index_name: 'orders_status_idx', columns: ['status'] }, {}, 'SELECT id FROM orders WHERE status = $1');
  t.equal(result.outcome, 'applied', result.error ?? '');
  t.equal(result.evidence?.dropped_invalid_index, 'orders_status_idx');
  t.same((await indexNames('orders')).find((row) => row.name === 'orders_status_idx'), { name: 'orders_status_idx', indisvalid: true });
  t.ok(result.cost_after_apply! > 0);
  const twice = await apply('create_index', { schema: 'public', table: 'orders', index_name: 'orders_status_idx', columns: ['status'] });
  t.match(twice, { outcome: 'failed', error: /exists already/ });
});

t.test('apply records the exact error of a lock timeout and leaves nothing behind', async (t) => {
  const holder = await database.connect();
  await holder.query('BEGIN');
  await holder.query('LOCK TABLE customers IN SHARE MODE');
  const target = { schema: 'public', table: 'customers', index_name: 'customers_region_idx', columns: ['region'] };
  const result = await apply('create_index', target, { concurrentIndexLockTimeoutMs: 300 });
  t.match(result, { outcome: 'failed', error: /CREATE INDEX CONCURRENTLY "customers_region_idx" .* failed: canceling statement due to lock timeout/ });
  t.notOk((await indexNames('customers')).some((row) => row.name === 'customers_region_idx'));
  await holder.query('ROLLBACK');

  await holder.query('SELECT pg_advisory_lock($1, 1)', [0x64626d6e]);
  const busy = await apply('create_index', target);
  t.match(busy, { outcome: 'failed', error: /Another dbmon apply holds the advisory lock/ });
  await holder.query('SELECT pg_advisory_unlock($1, 1)', [0x64626d6e]);
  t.equal((await apply('create_index', target)).outcome, 'applied');
});

t.test('an unreachable database fails the job with the reason', async (t) => {
  const result = await advisorJobs({ ...dbInfo, connection: { ...connection, port: 1 } }).analyze([]);
  t.match(result, { kind: 'analyze', outcome: 'failed', error: /ECONNREFUSED/ });
});
