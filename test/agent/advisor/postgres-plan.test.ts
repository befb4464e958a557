import t from 'tap';
import { columnsIn, columnUses, planExcerpt, scans, type PlanNode } from '../../../agent/advisor/postgres-plan.js';

t.test('column roles in plan expressions', async (t) => {
  t.same(columnsIn('((t.a = $1) AND (t.c = $2))', 'Filter'), [
    { alias: 't', column: 'a', role: 'equality', field: 'Filter' },
    { alias: 't', column: 'c', role: 'equality', field: 'Filter' },
  ]);
  t.same(columnsIn('(o.customer_id = c.id)', 'Hash Cond'), [
    { alias: 'o', column: 'customer_id', role: 'join', field: 'Hash Cond' },
    { alias: 'c', column: 'id', role: 'join', field: 'Hash Cond' },
  ]);
  t.same(columnsIn("(((t.b)::text = 'x;y'::text) AND (t.created_at >= $1) AND (t.\"Odd\"\"Name\" = ANY ($2)))", 'Filter'), [
    { alias: 't', column: 'b', role: 'equality', field: 'Filter' },
    { alias: 't', column: 'created_at', role: 'range', field: 'Filter' },
    { alias: 't', column: 'Odd"Name', role: 'equality', field: 'Filter' },
  ]);
  t.same(columnsIn("(lower(t.email) = 'a'::text)", 'Filter'), [], 'an expression is not a column');
  t.same(columnsIn('(t.a IS NULL)', 'Filter'), [{ alias: 't', column: 'a', role: 'equality', field: 'Filter' }]);
  t.same(columnsIn("(t.name ~~ 'ab%'::text)", 'Filter'), [], 'LIKE is left out');
});

const plan: PlanNode = {
  'Node Type': 'Hash Join',
  'Startup Cost': 10,
  'Total Cost': 5000,
  'Plan Rows': 40,
  'Hash Cond': '(o.customer_id = c.id)',
  Plans: [
    {
      'Node Type': 'Gather',
      'Plan Rows': 400,
      'Total Cost': 4000,
      'Startup Cost': 0,
      Plans: [{ 'Node Type': 'Seq Scan', 'Parallel Aware': true, 'Relation Name': 'orders', Schema: 'public', Alias: 'o', 'Plan Rows': 160, 'Total Cost': 3000, 'Startup Cost': 0, Filter: '(o.status = $1)' }],
    },
    { 'Node Type': 'Index Scan', 'Index Name': 'customers_pkey', 'Relation Name': 'customers', Schema: 'public', Alias: 'c', 'Plan Rows': 1, 'Total Cost': 8, 'Startup Cost': 0 },
  ],
};

t.test('scans, uses and excerpt', async (t) => {
  t.same(
    scans(plan).map((scan) => [scan.alias, scan.nodeType, scan.rows, scan.indexName]),
    [
      ['o', 'Seq Scan', 400, null],
      ['c', 'Index Scan', 1, 'customers_pkey'],
    ],
    "a parallel scan counts its Gather's rows",
  );
  t.same(columnUses(plan).map((use) => `${use.alias}.${use.column}:${use.role}`), ['o.customer_id:join', 'c.id:join', 'o.status:equality']);
  const excerpt = planExcerpt(plan);
  t.match(excerpt, /^Hash Join {2}\(cost=10\.\.5000 rows=40\)/);
  t.match(excerpt, /-> Seq Scan on public\.orders o/);
  t.match(excerpt, /Index Scan using customers_pkey on public\.customers c/);
  t.equal(planExcerpt(plan, 2).split('\n').length, 3, 'cut, with a marker');
});
