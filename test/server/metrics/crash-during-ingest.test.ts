import t from 'tap';
import { hourOf } from '../../../server/metrics/sealed-hours.js';
import { openStateDir } from '../../../server/state-dir.js';
import type { Db } from '../../../server/storage/open-database.js';
import { killOnProgress, preparedState } from '../../helpers/crash-state.js';
import { fillEverySample } from '../../helpers/every-sample.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { spawnServer, type ServerProcess } from '../../helpers/spawn-server.js';

// The built server killed with SIGKILL in the middle of batch writes, then the agent retries what was not acknowledged.

/** Where the batches' samples start: 70 minutes before this hour, so that the first ten minutes fall in an hour the seal job may seal. */
function oldestHourSealable(): number {
  return hourOf(Date.now()) - 70 * 60_000;
}

/**
 * How many samples are stored, rows and sealed hours alike, and how many distinct ones: the seal
 * job may have sealed the oldest hour of the batches by the time the test counts (once that hour
 * ended five minutes ago), and a resent sample may have unsealed it again.
 */
function storedSamples(db: Db): { stored: number; distinct: number } {
  fillEverySample(db);
  const count = (sql: string) => db.prepare(sql).pluck().get() as number;
  return { stored: count('SELECT count(*) FROM every_sample'), distinct: count('SELECT count(*) FROM (SELECT DISTINCT database_id, ts FROM every_sample)') };
}

t.test('SIGKILL during batch writes: acknowledged batches are there, and retried ones stored once', async (t) => {
  const { stateDir, db, agentKey, databaseIds } = preparedState(t, 5);
  db.close();
  const fromMs = oldestHourSealable();
  const batches = Array.from({ length: 60 }, (_, b) => ({
    batch_id: `crash-batch-${String(b).padStart(6, '0')}`,
    samples: Array.from({ length: 100 }, (_, s) => ({
      database_id: databaseIds[s % databaseIds.length]!,
      snapshot: makeSnapshot(new Date(fromMs + (b * 20 + Math.floor(s / databaseIds.length)) * 1000)),
    })),
  }));
  const post = (server: ServerProcess, batch: (typeof batches)[number]) =>
    fetch(`${server.url}/v1/agent/samples`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(batch),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as { stored: number; duplicate: boolean } }));
  const acknowledged = new Set<string>();
  const first = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
  const queue = [...batches];
  const workers = Array.from({ length: 3 }, async () => {
    for (let batch = queue.shift(); batch !== undefined; batch = queue.shift()) {
      const answer = await post(first, batch).catch(() => undefined);
      if (answer?.status === 200) acknowledged.add(batch.batch_id);
      if (acknowledged.size === 20) first.child.kill('SIGKILL');
      if (answer === undefined) return;
    }
  });
  await Promise.all(workers);
  await first.exited;
  t.ok(acknowledged.size >= 20 && acknowledged.size < batches.length, `killed with ${acknowledged.size} of ${batches.length} batches acknowledged`);

  const second = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
  // Every batch again, as the agent retries what was not acknowledged (and what was, if the answer got lost).
  const answers = await Promise.all(batches.map((batch) => post(second, batch)));
  let duplicates = 0;
  for (const [index, batch] of batches.entries()) {
    const answer = answers[index]!;
    t.equal(answer.status, 200);
    if (answer.body.duplicate) duplicates++;
    if (acknowledged.has(batch.batch_id)) t.ok(answer.body.duplicate, `${batch.batch_id}: acknowledged before the kill, kept`);
  }
  t.ok(duplicates >= acknowledged.size);
  t.equal((await second.stop()).code, 0);
  const { db: after } = openStateDir(stateDir, undefined);
  t.teardown(() => after.close());
  t.same(storedSamples(after), { stored: 60 * 100, distinct: 60 * 100 }, 'every sample of every batch, once');
  t.equal(after.prepare('SELECT count(DISTINCT batch_id) FROM ingested_batches').pluck().get(), 60);
});

t.test('SIGKILL between the slices of a batch: the acknowledged ones are there once, the cut one completes on resend', async (t) => {
  const { stateDir, db, agentKey, databaseIds } = preparedState(t, 5);
  db.close();
  const fromMs = oldestHourSealable();
  // 20 statements per collection, as agents send them: a batch of 100 is several slices of work.
  const statements = Array.from({ length: 20 }, (_, s) => ({ query_id_source: String(1_000 + s), query: `SELECT * FROM orders_${s} WHERE id = $1`, calls: 10, total_time_ms: 5, max_time_ms: 1, rows: 100 }));
  const batches = Array.from({ length: 40 }, (_, b) => ({
    batch_id: `sliced-batch-${String(b).padStart(6, '0')}`,
    samples: Array.from({ length: 100 }, (_, s) => ({
      database_id: databaseIds[s % databaseIds.length]!,
      snapshot: makeSnapshot(new Date(fromMs + (b * 20 + Math.floor(s / databaseIds.length)) * 1000), { statements }),
    })),
  }));
  const post = (server: ServerProcess, batch: (typeof batches)[number]) =>
    fetch(`${server.url}/v1/agent/samples`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(batch),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as { stored: number; duplicate: boolean } }));
  const acknowledged = new Set<string>();
  const first = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
  const queue = [...batches];
  const workers = Array.from({ length: 3 }, async () => {
    for (let batch = queue.shift(); batch !== undefined; batch = queue.shift()) {
      const answer = await post(first, batch).catch(() => undefined);
      if (answer === undefined) return;
      if (answer.status === 200) acknowledged.add(batch.batch_id);
    }
  });
  // In one read: more samples than the marked batches hold is a batch stored in part, its slices not all committed.
  const partlyStored = 'SELECT (SELECT count(*) FROM samples) - 100 * (SELECT count(*) FROM ingested_batches)';
  let cutSamples = 0;
  await killOnProgress(first, stateDir, 'a batch stored in part', (reader) => {
    cutSamples = acknowledged.size >= 5 ? (reader.prepare(partlyStored).pluck().get() as number) : 0;
    return cutSamples > 0;
  });
  await Promise.all(workers);
  t.ok(cutSamples > 0, `killed with ${acknowledged.size} batches acknowledged and ${cutSamples} samples of unmarked ones stored`);

  const second = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
  const answers = await Promise.all(batches.map((batch) => post(second, batch)));
  let completed = 0;
  for (const [index, batch] of batches.entries()) {
    const answer = answers[index]!;
    t.equal(answer.status, 200);
    if (acknowledged.has(batch.batch_id)) t.ok(answer.body.duplicate, `${batch.batch_id}: acknowledged before the kill, kept`);
    if (!answer.body.duplicate && answer.body.stored < 100) completed++;
  }
  t.ok(completed >= 1, `${completed} batches cut by the kill stored their rest`);
  t.equal((await second.stop()).code, 0);
  const { db: after } = openStateDir(stateDir, undefined);
  t.teardown(() => after.close());
  t.same(storedSamples(after), { stored: 40 * 100, distinct: 40 * 100 }, 'every sample of every batch, once');
  t.equal(after.prepare('SELECT count(DISTINCT batch_id) FROM ingested_batches').pluck().get(), 40);
});
