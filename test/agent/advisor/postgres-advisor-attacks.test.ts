import t from 'tap';
import { guardPlanning } from '../../../agent/advisor/postgres-planning-guard.js';
import { tokenize } from '../../../agent/advisor/statement-guard.js';
import { openPostgresSession } from '../../../agent/sources/postgres-session.js';
import { advisorJobs } from '../../helpers/advisor-jobs.js';
import { createThrowawayPostgresDatabase } from '../../helpers/throwaway-postgres-database.js';

// Statements to analyze come from pg_stat_statements, so anyone who can run a query can choose
// their text. Each attack below must leave no trace: `victims` stays empty, its table in place.
const database = await createThrowawayPostgresDatabase();
t.teardown(() => database.drop());
const client = await database.connect();
await client.query('CREATE EXTENSION dblink');
await client.query('CREATE TABLE victims (n integer)');
await client.query('CREATE TABLE orders (id integer PRIMARY KEY, status text NOT NULL)');
await client.query(`INSERT INTO orders SELECT i, 'x' FROM generate_series(1, 1000) i`);
// A function that lies about being IMMUTABLE: the planner folds it into a constant, so merely
// planning a statement that calls it runs it. Through dblink its write survives the rollback.
await client.query(`
  CREATE FUNCTION public.evil() RETURNS integer LANGUAGE plpgsql IMMUTABLE AS $$
  BEGIN
    PERFORM public.dblink_exec('host=127.0.0.1 user=postgres dbname=' || current_database(), 'INSERT INTO victims VALUES (1)');
    RETURN 1;
  END $$`);
await client.query('CREATE VIEW evil_view AS SELECT id, public.evil() AS e FROM orders');
await client.query(`CREATE FUNCTION public.evil_eq(integer, integer) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN PERFORM public.evil(); RETURN $1 = $2; END $$`);
await client.query('CREATE OPERATOR public.=== (LEFTARG = integer, RIGHTARG = integer, FUNCTION = public.evil_eq)');

const connection = { ...database.settings, password: null };
const { analyze, apply } = advisorJobs({ id: 'db_attacks000000000000000', name: 'attacks', type: 'postgresql', connection });
const victims = async () => (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM victims')).rows[0]!.n;

t.test('a second statement after a comment that \\r ends is refused, never run', async (t) => {
  // To a guard that ends -- comments at \n only, the second text is `SELECT 1 , (2)`; to PostgreSQL it is three statements.
  const result = await analyze(['SELECT 1 --\r; DROP TABLE victims', 'SELECT 1 --\r; COMMIT; INSERT INTO victims VALUES (1) --\n, (2)']);
  t.same(result.statements.map((statement) => statement.outcome), ['refused', 'refused'], JSON.stringify(result.statements));
  t.equal(await victims(), 0, 'nothing was inserted after a smuggled COMMIT');
});

t.test("the agent's PostgreSQL session runs one statement per call (extended protocol)", async (t) => {
  const session = await openPostgresSession(connection, { statementTimeoutMs: 5_000, connectTimeoutMs: 5_000 });
  t.teardown(() => session.close());
  await t.rejects(session.query('SELECT 1; INSERT INTO victims VALUES (1)'), /multiple commands/);
  t.equal(await victims(), 0);
});

t.test('statements that would run functions outside pg_catalog while planned are refused', async (t) => {
  const attacks = [
    'SELECT public.evil()',
    'SELECT evil() FROM orders WHERE id = $1',
    'SELECT "public"."evil"()',
    'SELECT * FROM evil_view WHERE id = $1',
    'SELECT id FROM orders WHERE 1 === 1',
    'SELECT id FROM orders WHERE 1 OPERATOR(public.===) 1',
    "SELECT $é$ ' $é$, public.evil() -- '",
    "SELECT 1 AS éE'\\' , public.evil() -- '",
    'UPDATE orders SET status = public.evil()::text WHERE id = $1',
  ];
  const result = await analyze(attacks);
  for (const [i, statement] of result.statements.entries()) {
    t.equal(statement.outcome, 'refused', `${attacks[i]}: ${statement.detail}`);
  }
  t.match(result.statements[0]?.detail, /public\.evil/, 'the refusal names the function');
  t.equal(await victims(), 0, 'evil() never ran');
});

t.test('functions a named table brings into the plan are refused too: index predicates, column defaults', async (t) => {
  await client.query('CREATE TABLE shelf (id integer PRIMARY KEY, d integer)');
  // Both the predicate and the default are folded by whoever plans a statement on the table.
  await client.query('CREATE INDEX shelf_evil_idx ON shelf (id) WHERE public.evil() = 1');
  await client.query('CREATE TABLE drawer (id integer PRIMARY KEY)');
  await client.query('ALTER TABLE drawer ADD COLUMN d integer DEFAULT public.evil()');
  await client.query('TRUNCATE victims');
  const result = await analyze(['SELECT id FROM shelf WHERE id = $1', 'UPDATE drawer SET d = DEFAULT WHERE id = $1']);
  t.same(result.statements.map((statement) => statement.outcome), ['refused', 'refused'], JSON.stringify(result.statements));
  t.equal(await victims(), 0);
});

t.test('a statement using only pg_catalog functions and operators is still analyzed', async (t) => {
  const result = await analyze(['SELECT id FROM orders WHERE lower(status) = $1 AND id > 0 ORDER BY length(status)']);
  t.not(result.statements[0]?.outcome, 'refused', result.statements[0]?.detail ?? '');
  t.not(result.statements[0]?.outcome, 'failed', result.statements[0]?.detail ?? '');
});

t.test('the plan after an apply is refused the same way', async (t) => {
  const target = { schema: 'public', table: 'orders', index_name: 'orders_status_idx', columns: ['status'] };
  const result = await apply('create_index', target, {}, 'SELECT id FROM orders WHERE status = public.evil()::text');
  t.equal(result.outcome, 'applied');
  t.match(result.evidence?.plan_error, /outside pg_catalog/);
  t.equal(await victims(), 0);
});

t.test('a database without standard_conforming_strings cannot hide a call from the guard', async (t) => {
  await database.admin(`ALTER DATABASE ${database.name} SET standard_conforming_strings = off`);
  const result = await analyze(["SELECT 'a\\' , $$ ' , public.evil() -- $$ FROM orders"]);
  t.not(result.statements[0]?.outcome, 'refused', 'to the guard and the pinned session alike, the call is inside a string');
  t.equal(await victims(), 0, 'evil() never ran');
});

t.test('planning runs with pg_catalog first and pg_temp last, whatever search_path the database sets', async (t) => {
  // A database (or role) may put another schema before pg_catalog; the guard pins the order back so
  // that no other schema's function or operator of the same name and signature can win.
  await client.query('CREATE SCHEMA shadow');
  await database.admin(`ALTER DATABASE ${database.name} SET search_path = shadow, pg_temp, public, pg_catalog`);
  t.teardown(() => database.admin(`ALTER DATABASE ${database.name} RESET search_path`));
  const session = await openPostgresSession(connection, { statementTimeoutMs: 5_000, connectTimeoutMs: 5_000 });
  t.teardown(() => session.close());
  await session.query('BEGIN');
  await guardPlanning(session, tokenize('SELECT id FROM orders WHERE id = $1', 'postgresql'));
  const [pinned] = await session.query('SELECT current_setting($1) AS path', ['search_path']);
  await session.query('ROLLBACK');
  t.equal(pinned?.path, 'pg_catalog, shadow, public, pg_temp');
});
