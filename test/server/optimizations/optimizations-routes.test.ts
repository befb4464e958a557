import pino from 'pino';
import t from 'tap';
import { JobRunner } from '../../../agent/advisor/job-runner.js';
import { embeddedJobSource } from '../../../server/optimizations/embedded-job-source.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { createServiceKey, createTenant, startTestServer } from '../../helpers/test-server.js';

const minute = 60_000;
const start = new Date('2026-11-22T12:00:00Z');
const server = await startTestServer({ now: start });
t.teardown(server.close);
const advance = (ms: number) => {
  server.clock.now = new Date(server.clock.now.getTime() + ms);
};

const tenant = createTenant(server.services, start);
const agentKey = createServiceKey(server.services, tenant.orgId, start, { scopes: ['agent'], account: 'opt-agent' });
const otherAgentKey = createServiceKey(server.services, tenant.orgId, start, { scopes: ['agent'], account: 'opt-agent-2' });
const agentId: string = (await server.request('GET', '/v1/agent/assignments', { key: agentKey })).body.agent_id;
await server.request('GET', '/v1/agent/assignments', { key: otherAgentKey });
const createDatabase = async (name: string, agent: string | null) =>
  (
    await server.request('POST', '/v1/databases', {
      key: tenant.key,
      body: { name, type: 'postgresql', agent_id: agent, connection: { host: 'db.internal', database: name, username: 'u', password: 'secret-pw' } },
    })
  ).body.id as string;
const databaseId = await createDatabase('orders', agentId);
const embeddedDatabaseId = await createDatabase('local', null);

let batch = 0;
const ingest = async (statements: unknown[], at = new Date(server.clock.now.getTime() - minute)) => {
  const response = await server.request('POST', '/v1/agent/samples', {
    key: agentKey,
    body: { batch_id: `opt-routes-batch-${String(++batch).padStart(6, '0')}`, samples: [{ database_id: databaseId, snapshot: { ...makeSnapshot(at), statements } }] },
  });
  if (response.body.stored !== 1) throw new Error(response.text);
};
await ingest([], new Date(start.getTime() - 2 * minute));
await ingest([
  { query_id_source: '1', query: 'SELECT * FROM a WHERE x = $1', calls: 10, total_time_ms: 1000, max_time_ms: 200, rows: 10 },
  { query_id_source: '2', query: 'SELECT * FROM b WHERE y = $1', calls: 100, total_time_ms: 5000, max_time_ms: 90, rows: 100 },
  { query_id_source: '3', query: 'SELECT 1', calls: 1000, total_time_ms: 10, max_time_ms: 1, rows: 1000 },
]);
const queries = (await server.request('GET', `/v1/databases/${databaseId}/queries`, { key: tenant.key })).body.data as Array<{ id: string; fingerprint: string }>;
const queryId = (fingerprint: string) => queries.find((query) => query.fingerprint === fingerprint)!.id;

const optimize = (body: unknown, database = databaseId, key = tenant.key) => server.request('POST', `/v1/databases/${database}/optimize`, { key, body });
const leaseJobs = async (key = agentKey) => {
  const response = await server.request('GET', '/v1/agent/jobs', { key });
  if (response.status !== 200) throw new Error(response.text);
  return response.body.jobs as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- wire JSON
};
const report = (jobId: string, body: unknown, key = agentKey) => server.request('POST', `/v1/agent/jobs/${jobId}/result`, { key, body });
const get = async (id: string) => (await server.request('GET', `/v1/optimizations/${id}`, { key: tenant.key })).body;

const target = { schema: 'public', table: 'a', index_name: 'a_x_idx', columns: ['x'] };
const createSuggestion = (query: string, pct = 90, extra: Record<string, unknown> = {}) => ({
  kind: 'create_index',
  query_id: query,
  summary: 'Create an index on public.a (x)',
  statement: 'CREATE INDEX CONCURRENTLY "a_x_idx" ON "public"."a" ("x")',
  target,
  estimated_improvement_pct: pct,
  cost_before: 1000,
  cost_after: 1000 - pct * 10,
  confidence: 'high',
  evidence: { method: 'hypopg' },
  ...extra,
});
const dropSuggestion = (name: string) => ({
  kind: 'drop_index',
  query_id: null,
  summary: `Drop index public.${name}`,
  statement: `DROP INDEX CONCURRENTLY "public"."${name}"`,
  target: { schema: 'public', table: 'b', index_name: name, columns: ['y'] },
  estimated_improvement_pct: null,
  cost_before: null,
  cost_after: null,
  confidence: 'medium',
  evidence: { method: 'catalog', reason: 'duplicate' },
});
const analyzed = (statements: unknown[], suggestions: unknown[]) => ({ kind: 'analyze', outcome: 'completed', statements, suggestions });

t.test('a request is recorded pending and handed to the agent that monitors the database', async (t) => {
  const response = await optimize({ query_id: queryId('1') });
  t.equal(response.status, 202);
  t.equal(response.headers.get('location'), `/v1/optimizations/${response.body.id}`);
  t.match(response.body, { status: 'pending', query_id: queryId('1'), kind: null, auto_apply: false, parent_id: null });
  t.match(response.body.id, /^opt_[0-9A-Za-z]{22}$/);

  t.same(await leaseJobs(otherAgentKey), [], 'another agent gets nothing');
  t.equal((await server.request('GET', '/v1/agent/jobs', { key: tenant.key })).status, 403, 'a dashboard key cannot lease jobs');
  const [job] = await leaseJobs();
  t.match(job, {
    kind: 'analyze',
    optimization_id: response.body.id,
    database: { id: databaseId, type: 'postgresql', connection: { host: 'db.internal', password: 'secret-pw' } },
    statements: [{ query_id: queryId('1'), query: 'SELECT * FROM a WHERE x = $1', calls: 10, total_time_ms: 1000, mean_time_ms: 100 }],
  });
  t.same(await leaseJobs(), [], 'a leased job is not handed out twice');
  t.equal((await get(response.body.id)).status, 'analyzing');

  t.equal((await report(job!.id, analyzed([], []), otherAgentKey)).status, 404, 'only the lease holder reports');
  t.equal((await report('job_doesnotexist000000000', analyzed([], []))).status, 404);
  t.equal((await report(job!.id, { kind: 'analyze', outcome: 'completed' })).status, 400, 'a malformed result');
  const reported = await report(job!.id, analyzed([{ query_id: queryId('1'), outcome: 'suggestion', detail: 'Index on a (x)' }], [createSuggestion(queryId('1')), dropSuggestion('b_y_idx2')]));
  t.same(reported.body, { job_id: job!.id, duplicate: false });
  const again = await report(job!.id, analyzed([], []));
  t.same(again.body, { job_id: job!.id, duplicate: true }, 'a repeated report changes nothing');

  const ready = await get(response.body.id);
  t.match(ready, { status: 'ready', kind: 'create_index', estimated_improvement_pct: 90, cost_before: 1000, cost_after: 100, confidence: 'high', evidence: { method: 'hypopg' } });
  t.equal(ready.statement, 'CREATE INDEX CONCURRENTLY "a_x_idx" ON "public"."a" ("x")');
  const children = await server.request('GET', `/v1/optimizations?database_id=${databaseId}&status=ready`, { key: tenant.key });
  const drop = children.body.data.find((row: { kind: string }) => row.kind === 'drop_index');
  t.match(drop, { parent_id: response.body.id, status: 'ready', query_id: null, auto_apply: false });

  await t.test('apply: only ready applies, and only once', async (t) => {
    const applying = await server.request('POST', `/v1/optimizations/${ready.id}/apply`, { key: tenant.key });
    t.equal(applying.status, 202);
    t.equal(applying.body.status, 'applying');
    const twice = await server.request('POST', `/v1/optimizations/${ready.id}/apply`, { key: tenant.key });
    t.match(twice, { status: 409, body: { error: { type: 'conflict', code: 'already_applied' } } });
    const [applyJob] = await leaseJobs();
    t.match(applyJob, { kind: 'apply', optimization_id: ready.id, apply: { kind: 'create_index', target, query: 'SELECT * FROM a WHERE x = $1' } });
    await report(applyJob!.id, { kind: 'apply', outcome: 'applied', cost_after_apply: 12.5, evidence: { uses_index: true } });
    const applied = await get(ready.id);
    t.match(applied, { status: 'applied', cost_after_apply: 12.5, error: null, evidence: { method: 'hypopg', apply: { uses_index: true } } });
    t.equal(applied.applied_at, server.clock.now.toISOString());
    t.equal(applied.measured_mean_time_ms_before, 100, 'from the intervals before applying');
    const thrice = await server.request('POST', `/v1/optimizations/${ready.id}/apply`, { key: tenant.key });
    t.equal(thrice.body.error.code, 'already_applied');
  });

  await t.test('the same drop suggestion is not made twice, nor one about an index dbmon created', async (t) => {
    const second = (await optimize({ query_id: queryId('1') })).body;
    const [job2] = await leaseJobs();
    await report(job2!.id, analyzed([{ query_id: queryId('1'), outcome: 'no_suggestion', detail: 'Already indexed by a_x_idx' }], [
      dropSuggestion('b_y_idx2'),
      { ...dropSuggestion('a_x_idx'), target },
    ]));
    t.match(await get(second.id), { status: 'no_suggestion', summary: 'Already indexed by a_x_idx', kind: null });
    const drops = (await server.request('GET', `/v1/optimizations?database_id=${databaseId}`, { key: tenant.key })).body.data.filter(
      (row: { kind: string }) => row.kind === 'drop_index',
    );
    t.equal(drops.length, 1);
  });
});

t.test('apply answers 409 with a code per state', async (t) => {
  const pending = (await optimize({ query_id: queryId('2') })).body;
  const tryApply = async (id: string) => (await server.request('POST', `/v1/optimizations/${id}/apply`, { key: tenant.key })).body.error?.code;
  t.equal(await tryApply(pending.id), 'not_ready');
  const [job] = await leaseJobs();
  t.equal(await tryApply(pending.id), 'not_ready', 'analyzing');
  await report(job!.id, analyzed([{ query_id: queryId('2'), outcome: 'refused', detail: 'Refused: the text holds more than one statement' }], []));
  const failed = await get(pending.id);
  t.match(failed, { status: 'failed', error: 'Refused: the text holds more than one statement' });
  t.equal(await tryApply(pending.id), 'optimization_failed');
  const nothing = (await optimize({ query_id: queryId('3') })).body;
  const [job2] = await leaseJobs();
  await report(job2!.id, analyzed([{ query_id: queryId('3'), outcome: 'no_suggestion', detail: 'No table' }], []));
  t.equal(await tryApply(nothing.id), 'nothing_to_apply');
  t.equal((await server.request('POST', '/v1/optimizations/opt_doesnotexist0000000000/apply', { key: tenant.key })).status, 404);
});

t.test('without query_id: the top statements by total time, the best saving first', async (t) => {
  const requested = (await optimize({})).body;
  t.equal(requested.query_id, null);
  const [job] = await leaseJobs();
  t.same(
    job!.statements.map((statement: { query_id: string }) => statement.query_id),
    [queryId('2'), queryId('1'), queryId('3')],
  );
  const onB = createSuggestion(queryId('2'), 60, { statement: 'CREATE INDEX CONCURRENTLY "b_y_idx" ON "public"."b" ("y")', target: { ...target, table: 'b', index_name: 'b_y_idx', columns: ['y'] } });
  await report(job!.id, analyzed([], [createSuggestion(queryId('1'), 95, { statement: 'CREATE INDEX CONCURRENTLY "a_z_idx" ON "public"."a" ("z")' }), onB]));
  const ready = await get(requested.id);
  t.equal(ready.status, 'ready');
  t.equal(ready.query_id, queryId('2'), '60 % of 5000 ms saves more than 95 % of 1000 ms');
  const list = await server.request('GET', `/v1/optimizations?database_id=${databaseId}&per_page=100`, { key: tenant.key });
  t.ok(list.body.data.some((row: { parent_id: string; query_id: string }) => row.parent_id === requested.id && row.query_id === queryId('1')));
});

t.test('a lease that runs out: analysis is handed out again, up to three attempts; apply fails', async (t) => {
  const requested = (await optimize({ query_id: queryId('1') })).body;
  for (let attempt = 1; attempt <= 3; attempt++) {
    t.equal((await leaseJobs()).length, 1, `attempt ${attempt}`);
    advance(11 * minute);
  }
  t.same(await leaseJobs(), []);
  t.match(await get(requested.id), { status: 'failed', error: /after 3 attempts/ });
});

t.test('auto_apply needs the organization setting', async (t) => {
  const refused = await optimize({ query_id: queryId('1'), auto_apply: true });
  t.match(refused, { status: 403, body: { error: { type: 'permission_error', code: 'auto_apply_not_allowed' } } });
  server.services.optimizations.setAutoApply(tenant.orgId, true);
  const accepted = await optimize({ query_id: queryId('1'), auto_apply: true });
  t.equal(accepted.status, 202);
  t.equal(accepted.body.auto_apply, true);
  const [job] = await leaseJobs();
  await report(job!.id, analyzed([], [createSuggestion(queryId('1'), 80, { statement: 'CREATE INDEX CONCURRENTLY "a_w_idx" ON "public"."a" ("w")' })]));
  t.equal((await get(accepted.body.id)).status, 'applying', 'applied on its own');
  const [applyJob] = await leaseJobs();
  t.equal(applyJob!.kind, 'apply');
  advance(25 * 60 * minute);
  t.same(await leaseJobs(), [], 'an apply whose lease ran out is not run again');
  t.match(await get(accepted.body.id), { status: 'failed', error: /did not report the outcome of applying/ });
  server.services.optimizations.setAutoApply(tenant.orgId, false);
});

t.test('the embedded agent takes the databases without agent_id, in-process', async (t) => {
  const requested = (await optimize({}, embeddedDatabaseId)).body;
  t.same(await leaseJobs(), [], 'not for the remote agent');
  const source = embeddedJobSource(server.services.optimizationJobs, () => server.clock.now);
  await t.rejects(source.reportResult('job_whatever', { kind: 'analyze' }), /Missing required parameter|Invalid/, 'results are validated as over HTTP');
  const ran: string[] = [];
  const runner = new JobRunner({
    source,
    logger: pino({ level: 'silent' }),
    runJob: async (job) => {
      ran.push(job.database.id);
      return { kind: 'analyze', outcome: 'completed', statements: [], suggestions: [] };
    },
  });
  t.equal(await runner.runOnce(), 1);
  t.same(ran, [embeddedDatabaseId]);
  t.match(await get(requested.id), { status: 'no_suggestion', summary: /nothing to analyze/ });
});

t.test('list, read, scopes and validation', async (t) => {
  const page = await server.request('GET', '/v1/optimizations?per_page=2', { key: tenant.key });
  t.equal(page.status, 200);
  t.equal(page.body.data.length, 2);
  t.ok(page.body.pagination.total > 2);
  t.match(page.headers.get('link'), /rel="next"/);
  const created = page.body.data.map((row: { created_at: string }) => row.created_at);
  t.ok(created[0] >= created[1], 'newest first');
  const failed = await server.request('GET', '/v1/optimizations?status=failed', { key: tenant.key });
  t.ok(failed.body.data.every((row: { status: string }) => row.status === 'failed'));
  t.equal((await server.request('GET', '/v1/optimizations?status=weird', { key: tenant.key })).status, 400);
  t.equal((await server.request('GET', '/v1/optimizations/opt_doesnotexist0000000000', { key: tenant.key })).status, 404);
  const stranger = createTenant(server.services, start);
  t.equal((await server.request('GET', `/v1/optimizations/${page.body.data[0].id}`, { key: stranger.key })).status, 404);
  t.equal((await server.request('GET', '/v1/optimizations', { key: stranger.key })).body.pagination.total, 0);
  t.equal((await optimize({}, databaseId, stranger.key)).status, 404);
  const reader = createServiceKey(server.services, tenant.orgId, start, { permission: 'read', account: 'reader' });
  t.equal((await optimize({}, databaseId, reader)).status, 403);
  t.equal((await server.request('GET', '/v1/optimizations', { key: reader })).status, 200);
  const unknownQuery = await optimize({ query_id: 'query_doesnotexist00000000' });
  t.match(unknownQuery, { status: 404, body: { error: { param: 'query_id' } } });
  t.equal((await optimize({ auto_apply: 'yes' })).status, 400);
  t.equal((await optimize({ extra: 1 })).body.error.code, 'unknown_parameter');
});
