import { setImmediate as oneTurn } from 'node:timers/promises';
import t from 'tap';
import type { SampleBatch } from '../../../common/agent-protocol/sample-batch.js';
import type { Snapshot } from '../../../common/agent-protocol/snapshot.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { createTenant, startTestServer, type TestServer } from '../../helpers/test-server.js';

// Ingest stores a batch in slices, one transaction each (ingest-service.ts), each in a turn of the
// event loop of its own, the first one too. With a budget of 0 every sample is a slice of its own,
// so a test can stop the server between two of them: after one turn, the first slice is committed.

const startMs = Date.parse('2026-11-24T08:00:00Z');
const now = new Date(startMs + 60_000);

function statements(tick: number): NonNullable<Snapshot['statements']> {
  return Array.from({ length: 3 }, (_, s) => ({
    query_id_source: String(1_000 + s),
    query: `SELECT * FROM orders_${s} WHERE id = $1`,
    calls: 10 * (tick + 1) + s,
    total_time_ms: 5 * (tick + 1) + s,
    max_time_ms: 1 + s,
    rows: 100 * (tick + 1) + s,
  }));
}

/** Three collections of each database, 10 s apart, with their statements. */
function batchOf(databaseIds: string[], batchId = 'sliced-batch-000001'): SampleBatch {
  const samples = [0, 1, 2].flatMap((tick) =>
    databaseIds.map((database_id) => ({ database_id, snapshot: makeSnapshot(new Date(startMs + tick * 10_000), { statements: statements(tick) }) })),
  );
  return { batch_id: batchId, samples };
}

async function serverWithDatabases(stateDir: string | undefined, names: string[]) {
  const server = await startTestServer({ now, ingestSliceBudgetMs: 0, ...(stateDir !== undefined && { stateDir }) });
  const { key } = createTenant(server.services, now);
  const ids: string[] = [];
  for (const name of names) {
    const response = await server.request('POST', '/v1/databases', {
      key,
      body: { name, type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' }, monitoring: { interval_seconds: 10 } },
    });
    ids.push(response.body.id as string);
  }
  return { server, key, ids };
}

const count = (server: TestServer, table: string) => server.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
/** What slow-query history holds, without its generated keys. */
const statementRows = (server: TestServer) =>
  server.db
    .prepare(
      `SELECT i.ts, s.fingerprint, i.interval_start_ts, i.calls, i.total_time_ms, i.max_time_ms, i.rows
         FROM statement_intervals i JOIN statements s ON s.key = i.statement_key ORDER BY i.ts, s.fingerprint`,
    )
    .all();

t.test('a batch cut short after its first slice is not marked: its resend stores the rest, statements once', async (t) => {
  const stateDir = tempDir(t, 'dbmon-sliced-');
  const { server, ids } = await serverWithDatabases(stateDir, ['one']);
  const batch = batchOf(ids);
  const storing = server.services.ingest.ingestInSlices({ kind: 'embedded' }, batch, now);
  t.equal(count(server, 'samples'), 0, 'nothing is stored in the turn the batch arrived in');
  await oneTurn();
  t.equal(count(server, 'samples'), 1, 'the first slice is committed in the next turn');
  t.equal(count(server, 'ingested_batches'), 0, 'and the batch is not marked yet');
  const retry = server.services.ingest.ingestInSlices({ kind: 'embedded' }, batch, now);
  await server.close();
  await t.rejects(storing, 'the next slice finds the state database closed, as after a crash');
  await t.rejects(retry, 'a retry waiting on it tries to store it itself once it failed');

  const again = await startTestServer({ now, stateDir, ingestSliceBudgetMs: 0 });
  t.teardown(again.close);
  t.same(await again.services.ingest.ingestInSlices({ kind: 'embedded' }, batch, now), { batch_id: batch.batch_id, stored: 2, duplicate: false, rejected: 0 });
  t.equal(count(again, 'samples'), 3);
  t.equal(count(again, 'ingested_batches'), 1);
  t.equal((await again.services.ingest.ingestInSlices({ kind: 'embedded' }, batch, now)).duplicate, true, 'marked once complete');

  const reference = await serverWithDatabases(undefined, ['one']);
  t.teardown(reference.server.close);
  reference.server.db.prepare('UPDATE databases SET id = ?').run(ids[0]);
  reference.server.services.ingest.ingest({ kind: 'embedded' }, batch, now);
  t.same(statementRows(again), statementRows(reference.server), 'the same statement history as the batch stored in one go');
  t.equal(again.db.prepare('SELECT ts FROM latest_snapshots').pluck().get(), startMs + 20_000, 'latest is the newest sample');
});

t.test('a retry that arrives while its batch is being stored waits, then answers duplicate', async (t) => {
  const { server, ids } = await serverWithDatabases(undefined, ['one', 'two']);
  t.teardown(server.close);
  const batch = batchOf(ids);
  const source = { kind: 'embedded' } as const;
  const first = server.services.ingest.ingestInSlices(source, batch, now);
  const retry = server.services.ingest.ingestInSlices(source, batch, now);
  t.same(await Promise.all([first, retry]), [
    { batch_id: batch.batch_id, stored: 6, duplicate: false, rejected: 0 },
    { batch_id: batch.batch_id, stored: 0, duplicate: true, rejected: 0 },
  ]);
  t.equal(count(server, 'samples'), 6);
  t.equal(count(server, 'statement_intervals'), 6 * 3);
});

t.test('alerts are evaluated once the last slice stored, over every database of the batch', async (t) => {
  const { server, key, ids } = await serverWithDatabases(undefined, ['one', 'two']);
  t.teardown(server.close);
  const rule = await server.request('POST', '/v1/alerts/rules', {
    key,
    body: { name: 'busy', metric: 'cpu_usage', operator: '>', threshold: 10, severity: 'warning', duration_seconds: 0 },
  });
  t.equal(rule.status, 201, rule.text);
  const storing = server.services.ingest.ingestInSlices({ kind: 'embedded' }, batchOf(ids), now);
  await oneTurn();
  t.equal(count(server, 'samples'), 1);
  t.equal(count(server, 'alerts'), 0, 'not after the first slice');
  await storing;
  t.same(server.db.prepare('SELECT database_id FROM alerts ORDER BY database_id').pluck().all(), [...ids].sort(), 'both databases, the first stored slices ago');
});

t.test('a batch marked by another writer between its slices answers duplicate, its samples stored once', async (t) => {
  const { server, ids } = await serverWithDatabases(undefined, ['one']);
  t.teardown(server.close);
  const batch = batchOf(ids);
  const source = { kind: 'embedded' } as const;
  const sliced = server.services.ingest.ingestInSlices(source, batch, now);
  await oneTurn();
  t.equal(count(server, 'samples'), 1, 'its first slice stored');
  t.same(server.services.ingest.ingest(source, batch, now), { batch_id: batch.batch_id, stored: 2, duplicate: false, rejected: 0 }, 'the rest, in one go');
  t.same(await sliced, { batch_id: batch.batch_id, stored: 0, duplicate: true, rejected: 0 });
  t.equal(count(server, 'samples'), 3);
  t.equal(count(server, 'statement_intervals'), 3 * 3);
});
