import t from 'tap';
import { agentAssignments } from '../../../common/agent-protocol/assignments.js';
import { batchIdLength, maxBatchSamples, maxErrorLength, maxQueryLength, maxStatementsPerSnapshot } from '../../../common/agent-protocol/limits.js';
import { sampleBatchSchema } from '../../../common/agent-protocol/sample-batch.js';
import type { Snapshot, StatementStats } from '../../../common/agent-protocol/snapshot.js';
import { metricCatalog } from '../../../common/metric-catalog.js';
import { InvalidRequestError } from '../../../server/errors.js';
import { compiledBodyParser } from '../../../server/http/compiled-body.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';

// The parser `POST /v1/agent/samples` uses: at each limit a batch passes, one past it is refused.
const parse = compiledBodyParser(sampleBatchSchema(metricCatalog));
const refusal = (body: unknown): string | undefined => {
  try {
    parse(body);
    return undefined;
  } catch (error) {
    if (!(error instanceof InvalidRequestError)) throw error;
    return error.param ?? '(no param)';
  }
};

const at = new Date('2026-11-22T12:00:00Z');
const batch = (overrides: { batch_id?: string; samples?: number; snapshot?: Partial<Snapshot> } = {}) => ({
  batch_id: overrides.batch_id ?? 'limits-batch-0001',
  samples: Array.from({ length: overrides.samples ?? 1 }, () => ({ database_id: 'db_1', snapshot: { ...makeSnapshot(at), ...overrides.snapshot } })),
});
const statement = (query = 'SELECT 1'): StatementStats => ({ query_id_source: '1', query, calls: 1, total_time_ms: 1, max_time_ms: null, rows: 1 });

t.test('batch id length', async (t) => {
  t.equal(refusal(batch({ batch_id: 'a'.repeat(batchIdLength.min) })), undefined, `${batchIdLength.min} characters pass`);
  t.equal(refusal(batch({ batch_id: 'a'.repeat(batchIdLength.max) })), undefined, `${batchIdLength.max} characters pass`);
  t.equal(refusal(batch({ batch_id: 'a'.repeat(batchIdLength.min - 1) })), 'batch_id');
  t.equal(refusal(batch({ batch_id: 'a'.repeat(batchIdLength.max + 1) })), 'batch_id');
});

t.test('samples per batch', async (t) => {
  t.equal(refusal(batch({ samples: maxBatchSamples })), undefined);
  t.equal(refusal(batch({ samples: maxBatchSamples + 1 })), 'samples');
});

t.test('error length: the snapshot error, a collector error and the latency note', async (t) => {
  const long = (n: number) => 'e'.repeat(n);
  t.equal(refusal(batch({ snapshot: { error: long(maxErrorLength) } })), undefined);
  t.equal(refusal(batch({ snapshot: { error: long(maxErrorLength + 1) } })), 'samples.0.snapshot.error');
  const collectors = (n: number) => [{ name: 'c', duration_ms: 1, success: false, error: long(n) }];
  t.equal(refusal(batch({ snapshot: { collectors: collectors(maxErrorLength) } })), undefined);
  t.equal(refusal(batch({ snapshot: { collectors: collectors(maxErrorLength + 1) } })), 'samples.0.snapshot.collectors.0.error');
  const note = (n: number) => ({ ...makeSnapshot(at).metrics, latency: { ...makeSnapshot(at).metrics.latency, source: null, note: long(n) } });
  t.equal(refusal(batch({ snapshot: { metrics: note(maxErrorLength) } })), undefined);
  t.equal(refusal(batch({ snapshot: { metrics: note(maxErrorLength + 1) } })), 'samples.0.snapshot.metrics.latency.note');
});

t.test('statements per snapshot and the length of their text', async (t) => {
  t.equal(refusal(batch({ snapshot: { statements: Array(maxStatementsPerSnapshot).fill(statement()) } })), undefined);
  t.equal(refusal(batch({ snapshot: { statements: Array(maxStatementsPerSnapshot + 1).fill(statement()) } })), 'samples.0.snapshot.statements');
  t.equal(refusal(batch({ snapshot: { statements: [statement('q'.repeat(maxQueryLength))] } })), undefined);
  t.equal(refusal(batch({ snapshot: { statements: [statement('q'.repeat(maxQueryLength + 1))] } })), 'samples.0.snapshot.statements.0.query');
});

t.test('an assigned connection names a host and a user, on a real port', async (t) => {
  const connection = { host: 'db.internal', port: 5432, database: 'orders', username: 'monitor', password: null, ssl: false };
  const body = (overrides: object) => ({
    agent_id: 'agent_1',
    databases: [{ id: 'db_1', name: 'orders', type: 'postgresql', interval_seconds: 60, connection: { ...connection, ...overrides } }],
  });
  t.ok(agentAssignments.safeParse(body({})).success);
  for (const [overrides, field] of [
    [{ host: '' }, 'host'],
    [{ username: '' }, 'username'],
    [{ port: 0 }, 'port'],
    [{ port: 65_536 }, 'port'],
  ] as const) {
    const parsed = agentAssignments.safeParse(body(overrides));
    t.same(parsed.error?.issues.map((issue) => issue.path.join('.')), [`databases.0.connection.${field}`], JSON.stringify(overrides));
  }
});
