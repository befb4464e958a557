import t from 'tap';
import type { AgentJob } from '../../../common/agent-protocol/optimization-jobs.js';
import { HttpJobSource } from '../../../agent/advisor/http-job-source.js';
import { JobRunner } from '../../../agent/advisor/job-runner.js';
import { embeddedJobSource } from '../../../server/optimizations/embedded-job-source.js';
import { captureLogger } from '../../helpers/capture-logger.js';
import { createServiceKey, createTenant, startTestServer } from '../../helpers/test-server.js';

const start = new Date('2026-11-22T12:00:00Z');
const server = await startTestServer({ now: start });
t.teardown(server.close);
const tenant = createTenant(server.services, start);
const agentKey = createServiceKey(server.services, tenant.orgId, start, { scopes: ['agent'], account: 'moving-agent' });
const agentId: string = (await server.request('GET', '/v1/agent/assignments', { key: agentKey })).body.agent_id;

let databases = 0;
const createDatabase = async (agent: string | null) =>
  (
    await server.request('POST', '/v1/databases', {
      key: tenant.key,
      body: { name: `shop-${++databases}`, type: 'postgresql', agent_id: agent, connection: { host: 'db.internal', database: 'shop', username: 'u', password: 'pw' } },
    })
  ).body.id as string;
const put = (databaseId: string, body: unknown) => server.request('PUT', `/v1/databases/${databaseId}`, { key: tenant.key, body });
const optimize = async (databaseId: string) => (await server.request('POST', `/v1/databases/${databaseId}/optimize`, { key: tenant.key, body: {} })).body;
const get = async (id: string) => (await server.request('GET', `/v1/optimizations/${id}`, { key: tenant.key })).body;
const leaseJobs = async () => (await server.request('GET', '/v1/agent/jobs', { key: agentKey })).body.jobs as AgentJob[];
const report = (jobId: string, body: unknown) => server.request('POST', `/v1/agent/jobs/${jobId}/result`, { key: agentKey, body });

let indexes = 0;
const suggestion = () => {
  const name = `t_c${++indexes}_idx`;
  return {
    kind: 'create_index',
    query_id: 'query_a',
    summary: 'Create an index',
    statement: `CREATE INDEX CONCURRENTLY "${name}" ON "public"."t" ("c${indexes}")`,
    target: { schema: 'public', table: 't', index_name: name, columns: [`c${indexes}`] },
    estimated_improvement_pct: 50,
    cost_before: 100,
    cost_after: 50,
    confidence: 'high',
    evidence: {},
  };
};
const analyzed = { kind: 'analyze', outcome: 'completed', statements: [], suggestions: [] };
const applied = { kind: 'apply', outcome: 'applied', cost_after_apply: 1 };

/** An optimization of `databaseId` made ready by the agent. */
const readyOptimization = async (databaseId: string) => {
  const requested = await optimize(databaseId);
  const [job] = await leaseJobs();
  await report(job!.id, { ...analyzed, suggestions: [suggestion()] });
  t.equal((await get(requested.id)).status, 'ready');
  return requested.id as string;
};

t.test('a change of connection dismisses ready optimizations and refuses the results of jobs leased before it', async (t) => {
  const databaseId = await createDatabase(agentId);
  const ready = await readyOptimization(databaseId);
  const applying = await readyOptimization(databaseId);
  t.equal((await server.request('POST', `/v1/optimizations/${applying}/apply`, { key: tenant.key })).status, 202);
  const [applyJob] = await leaseJobs();
  t.equal(applyJob!.kind, 'apply');
  const analyzing = (await optimize(databaseId)).id as string;
  const [analyzeJob] = await leaseJobs();
  t.equal(analyzeJob!.optimization_id, analyzing);
  const pending = (await optimize(databaseId)).id as string;

  const renamed = await put(databaseId, { name: 'shop-renamed', monitoring: { interval_seconds: 30 } });
  t.equal(renamed.status, 200);
  t.equal((await get(ready)).status, 'ready', 'a change that is not the connection leaves them alone');

  const moved = await put(databaseId, { connection: { host: 'replica.internal' } });
  t.equal(moved.status, 200);
  t.match(await get(ready), { status: 'dismissed', error: /connection changed/ }, 'a ready suggestion was of another database');
  t.match(await get(applying), { status: 'failed', error: /connection changed while this was being applied/ });
  t.match(await get(analyzing), { status: 'failed', error: /connection changed before the analysis finished/ });
  t.match(await get(pending), { status: 'failed', error: /connection changed before the analysis finished/ });

  for (const [job, result] of [
    [analyzeJob!, { ...analyzed, suggestions: [suggestion()] }],
    [applyJob!, applied],
  ] as const) {
    const refused = await report(job.id, result);
    t.match(refused, { status: 409, body: { error: { type: 'conflict', code: 'connection_changed', param: 'id' } } }, `${job.kind}: refused`);
    t.match(await report(job.id, result), { status: 409 }, `${job.kind}: refused again, never counted as a duplicate`);
  }
  t.match(await get(analyzing), { status: 'failed' }, 'the refused result changed nothing');
  t.match(await get(applying), { status: 'failed', applied_at: null });
  t.same(await leaseJobs(), [], 'the queued job is cancelled too');

  const events = server.db
    .prepare("SELECT payload FROM events WHERE type = 'optimization.failed'")
    .pluck()
    .all() as string[];
  const failedIds = events.map((payload) => (JSON.parse(payload) as { data: { object: { id: string } } }).data.object.id);
  t.ok([applying, analyzing, pending].every((id) => failedIds.includes(id)), 'each failure is an optimization.failed event');
});

t.test('the agent drops a result refused as connection_changed, over HTTP and in-process', async (t) => {
  for (const remote of [true, false]) {
    const databaseId = await createDatabase(remote ? agentId : null);
    const requested = await optimize(databaseId);
    const log = captureLogger('debug');
    const runner = new JobRunner({
      source: remote
        ? new HttpJobSource({ serverUrl: server.url, agentKey, version: 'test', hostname: 'moving-host', timeoutMs: 10_000 })
        : embeddedJobSource(server.services.optimizationJobs, () => server.clock.now),
      logger: log.logger,
      // The connection changes while the analysis runs.
      runJob: async () => {
        t.equal((await put(databaseId, { connection: { port: 6543 } })).status, 200);
        return { kind: 'analyze', outcome: 'completed', statements: [], suggestions: [] };
      },
    });
    t.equal(await runner.runOnce(), 1);
    const name = remote ? 'remote agent' : 'embedded agent';
    const refusals = log.lines.filter((line) => line.msg === 'the server refused the job result; dropped');
    t.equal(refusals.length, 1, `${name}: refused once`);
    t.match(refusals[0], { error: /connection_changed|connection changed/ }, `${name}: the log says why`);
    t.equal(await runner.runOnce(), 0);
    t.notOk(log.lines.some((line) => line.msg === 'reporting a job result failed; it is offered again on the next poll'), `${name}: not offered again`);
    t.match(await get(requested.id), { status: 'failed', error: /connection changed/ });
  }
});
