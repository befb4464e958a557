import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import t from 'tap';
import type { JobResult } from '../../../common/agent-protocol/job-results.js';
import type { AgentJob } from '../../../common/agent-protocol/optimization-jobs.js';
import type { RunJobContext } from '../../../agent/advisor/run-job.js';
import { JobRunner, ResultRefusedError, type JobSource } from '../../../agent/advisor/job-runner.js';

const logger = pino({ level: 'silent' });
const connection = { host: 'h', port: 5432, database: 'd', username: 'u', password: null, ssl: false };
const job = (id: string, databaseId: string): AgentJob => ({
  id,
  kind: 'analyze',
  optimization_id: `opt_${id}`,
  database: { id: databaseId, name: databaseId, type: 'postgresql', connection },
  statements: [],
});
const completed: JobResult = { kind: 'analyze', outcome: 'completed', statements: [], suggestions: [] };

/** A source that hands out the queued jobs once and records what is reported. */
class FakeSource implements JobSource {
  queue: unknown[] = [];
  reported: Array<{ jobId: string; result: JobResult }> = [];
  failReports = 0;
  refuse = new Set<string>();
  fetches = 0;

  async fetchJobs(): Promise<unknown[]> {
    this.fetches++;
    const jobs = this.queue;
    this.queue = [];
    return jobs;
  }

  async reportResult(jobId: string, result: JobResult): Promise<void> {
    if (this.refuse.has(jobId)) throw new ResultRefusedError('404 lease gone');
    if (this.failReports > 0) {
      this.failReports--;
      throw new Error('connection reset');
    }
    this.reported.push({ jobId, result });
  }
}

t.test('one job at a time per database, databases side by side', async (t) => {
  const source = new FakeSource();
  const running = new Set<string>();
  const overlaps: string[][] = [];
  const runJob = async (agentJob: AgentJob): Promise<JobResult> => {
    running.add(agentJob.id);
    overlaps.push([...running].sort());
    await sleep(30);
    running.delete(agentJob.id);
    return completed;
  };
  const runner = new JobRunner({ source, logger, runJob });
  source.queue = [job('a1', 'db_a'), job('a2', 'db_a'), job('b1', 'db_b'), { kind: 'mystery' }];
  t.equal(await runner.runOnce(), 3, 'the unreadable job is skipped');
  t.ok(overlaps.every((ids) => !(ids.includes('a1') && ids.includes('a2'))), 'never two jobs of one database at once');
  t.ok(overlaps.some((ids) => ids.includes('b1') && ids.length > 1), 'another database runs alongside');
  t.same(source.reported.map((entry) => entry.jobId).sort(), ['a1', 'a2', 'b1']);
});

t.test('a result the server did not take is offered again; a refused one is dropped', async (t) => {
  const source = new FakeSource();
  const runner = new JobRunner({ source, logger, runJob: async () => completed });
  source.failReports = 1;
  source.queue = [job('c1', 'db_c')];
  await runner.runOnce();
  t.same(source.reported, [], 'the first report failed');
  await runner.runOnce();
  t.same(source.reported.map((entry) => entry.jobId), ['c1'], 'sent with the next poll');
  source.refuse.add('c2');
  source.queue = [job('c2', 'db_c')];
  await runner.runOnce();
  await runner.runOnce();
  t.same(source.reported.map((entry) => entry.jobId), ['c1'], 'not retried for ever');
});

t.test('a database configured on the host uses its local connection settings', async (t) => {
  const source = new FakeSource();
  const seen: RunJobContext[] = [];
  const local = { ...connection, host: 'local-socket-host', password: 'local-secret' };
  const runner = new JobRunner({
    source,
    logger,
    runJob: async (_job, ctx) => {
      seen.push(ctx);
      return completed;
    },
    localDatabases: [{ id: 'db_local', name: 'local', type: 'postgresql', interval_seconds: 60, connection: local }],
    advisor: { minImprovementPct: 30 },
  });
  source.queue = [job('l1', 'db_local'), job('r1', 'db_remote')];
  await runner.runOnce();
  t.same(seen[0]?.connection, local);
  t.equal(seen[1]?.connection, undefined);
  t.equal(seen[0]?.options.minImprovementPct, 30);
  t.equal(seen[0]?.options.lockTimeoutMs, 5000, 'defaults for the rest');
});

t.test('the loop polls until stopped', async (t) => {
  const source = new FakeSource();
  const runner = new JobRunner({ source, logger, runJob: async () => completed, pollIntervalMs: 10 });
  source.queue = [job('p1', 'db_p')];
  runner.start();
  await sleep(100);
  await runner.stop();
  const fetches = source.fetches;
  t.ok(fetches >= 3, `${fetches} polls`);
  t.same(source.reported.map((entry) => entry.jobId), ['p1']);
  await sleep(50);
  t.equal(source.fetches, fetches, 'no poll after stop');
});

t.test('polling for a long time adds no listener per poll to the stop signal', async (t) => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on('warning', onWarning);
  t.teardown(() => process.off('warning', onWarning));
  const source = new FakeSource();
  const runner = new JobRunner({ source, logger, runJob: async () => completed, pollIntervalMs: 1 });
  runner.start();
  while (source.fetches < 30) await sleep(5);
  await runner.stop();
  // Node emits the warning on the next tick after the 11th listener.
  await sleep(20);
  t.same(
    warnings.map((warning) => `${warning.name}: ${warning.message}`),
    [],
    'no MaxListenersExceededWarning after 30 polls',
  );
});
