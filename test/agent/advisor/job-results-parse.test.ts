import t, { type Test } from 'tap';
import { jobResult } from '../../../common/agent-protocol/job-results.js';
import { advisorJobs } from '../../helpers/advisor-jobs.js';
import { createThrowawayPostgresDatabase } from '../../helpers/throwaway-postgres-database.js';

// What the agent reports is what the server validates: real analysis and apply results, as JSON,
// parse with the protocol's job result schema.
const database = await createThrowawayPostgresDatabase();
t.teardown(() => database.drop());
const client = await database.connect();
await client.query('CREATE TABLE orders (id bigserial PRIMARY KEY, customer_id integer NOT NULL, status text NOT NULL)');
await client.query(`INSERT INTO orders (customer_id, status) SELECT i % 50000, 'closed' FROM generate_series(1, 100000) i`);
await client.query('ANALYZE');
const { analyze, apply } = advisorJobs({ id: 'db_resultsparse000000000', name: 'results', type: 'postgresql', connection: { ...database.settings, password: null } });

const parses = (t: Test, result: unknown) => {
  const parsed = jobResult.safeParse(JSON.parse(JSON.stringify(result)));
  t.ok(parsed.success, parsed.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ') ?? 'parses');
};

t.test('an analysis with a suggestion, then its apply', async (t) => {
  const analysis = await analyze(['SELECT id FROM orders WHERE customer_id = $1', 'SELECT * FROM no_such_table']);
  t.equal(analysis.suggestions.length, 1, JSON.stringify(analysis.statements));
  parses(t, analysis);
  const applied = await apply('create_index', analysis.suggestions[0]!.target, {}, 'SELECT id FROM orders WHERE customer_id = $1');
  t.equal(applied.outcome, 'applied', applied.error ?? '');
  parses(t, applied);
});

t.test('failed jobs', async (t) => {
  const failedApply = await apply('drop_index', { schema: 'public', table: 'orders', index_name: 'no_such_index', columns: ['status'] });
  t.equal(failedApply.outcome, 'failed');
  parses(t, failedApply);
  const unreachable = advisorJobs({ id: 'db_resultsparse000000001', name: 'gone', type: 'postgresql', connection: { ...database.settings, port: 1, password: null } });
  const failedAnalysis = await unreachable.analyze(['SELECT 1']);
  t.equal(failedAnalysis.outcome, 'failed');
  parses(t, failedAnalysis);
});
