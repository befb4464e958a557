import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import t from 'tap';
import type { Assignment } from '../../../agent/assignments/assignment.js';
import { CollectionRunner } from '../../../agent/collection/collection-runner.js';
import { createDatabaseCollection, type DatabaseCollection } from '../../../agent/collection/database-collection.js';
import { Pusher } from '../../../agent/delivery/pusher.js';
import { newBatchId, openSpool } from '../../../agent/delivery/spool.js';
import type { Transport } from '../../../agent/delivery/transport.js';
import { maxErrorLength } from '../../../common/agent-protocol/limits.js';
import { batchId, sampleBatchSchema, type SampleBatch } from '../../../common/agent-protocol/sample-batch.js';
import type { Snapshot } from '../../../common/agent-protocol/snapshot.js';
import { createLogger } from '../../../common/logger.js';
import { metricCatalog } from '../../../common/metric-catalog.js';
import { freePort } from '../../helpers/batch-receiver.js';
import { createThrowawayMysqlDatabase } from '../../helpers/throwaway-mysql-database.js';
import { createThrowawayPostgresDatabase } from '../../helpers/throwaway-postgres-database.js';
import { waitUntil } from '../../helpers/wait-until.js';

// What the agent sends is what the server validates: real collections go through the real spool
// and pusher, and every batch the transport is handed must parse with the protocol's schema.
const logger = createLogger('silent');
const collectionOptions = { logger, timeoutMs: 10_000, procRoot: '/proc', diskPath: '/' };
const assigned = (id: string, type: Assignment['type'], connection: Assignment['connection']): Assignment => ({
  id,
  name: id,
  type,
  interval_seconds: 60,
  connection,
});

const postgres = await createThrowawayPostgresDatabase();
const mariadb = await createThrowawayMysqlDatabase();
const collections: DatabaseCollection[] = [
  createDatabaseCollection(assigned('db_postgres', 'postgresql', postgres.settings), collectionOptions),
  createDatabaseCollection(assigned('db_mariadb', 'mariadb', mariadb.settings), collectionOptions),
];
const unreachable = createDatabaseCollection(
  assigned('db_unreachable', 'postgresql', { ...postgres.settings, port: await freePort() }),
  collectionOptions,
);
t.teardown(async () => {
  for (const collection of [...collections, unreachable]) await collection.close();
  await postgres.drop();
  await mariadb.drop();
});

/** Two cycles of each database with statements run in between, so the second carries rates, latencies and statements. */
async function collectAll(): Promise<{ database_id: string; snapshot: Snapshot }[]> {
  const samples: { database_id: string; snapshot: Snapshot }[] = [];
  const ids = ['db_postgres', 'db_mariadb'];
  const pg = await postgres.connect();
  const my = await mysql.createConnection({ host: mariadb.settings.host, port: mariadb.settings.port, user: mariadb.settings.username, database: mariadb.name });
  try {
    for (let cycle = 0; cycle < 2; cycle++) {
      for (const [i, collection] of collections.entries()) samples.push({ database_id: ids[i]!, snapshot: await collection.collect(new Date(), AbortSignal.timeout(10_000)) });
      for (let n = 0; n < 20; n++) {
        await pg.query('SELECT $1::int + 1', [n]);
        await my.query('SELECT ? + 1', [n]);
      }
    }
  } finally {
    await pg.end();
    await my.end();
  }
  samples.push({ database_id: 'db_unreachable', snapshot: await unreachable.collect(new Date(), AbortSignal.timeout(10_000)) });
  return samples;
}

t.test('batches of real collections, as the pusher hands them to the transport, parse with the protocol schema', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'dbmon-sent-batches-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const spool = openSpool(join(dir, 'spool.db'), { maxSamples: 1000 });
  t.teardown(() => spool.close());
  const sent: SampleBatch[] = [];
  const transport: Transport = {
    sendBatch: async (batch) => {
      sent.push(JSON.parse(JSON.stringify(batch)) as SampleBatch);
      return { batch_id: batch.batch_id, stored: batch.samples.length, duplicate: false, rejected: 0 };
    },
  };
  const samples = await collectAll();
  for (const sample of samples) spool.append([sample]);
  const pusher = new Pusher({ spool, transport, logger });
  pusher.start();
  t.teardown(() => pusher.stop());
  await waitUntil('the spool to drain', async () => spool.stats().batches === 0, 15_000);

  const schema = sampleBatchSchema(metricCatalog);
  t.equal(sent.flatMap((batch) => batch.samples).length, samples.length, 'every sample was sent');
  for (const batch of sent) {
    const parsed = schema.safeParse(batch);
    t.ok(parsed.success, parsed.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ') ?? 'parses');
  }
  const postgresLast = samples.filter((sample) => sample.database_id === 'db_postgres').at(-1)!.snapshot;
  t.ok((postgresLast.statements ?? []).length > 0, 'a snapshot with statements was among them');
  t.equal(samples.at(-1)!.snapshot.reachable, false, 'and an unreachable one');
});

t.test("the agent's batch ids are within the protocol's length", async (t) => {
  for (let i = 0; i < 20; i++) t.ok(batchId.safeParse(newBatchId()).success);
});

t.test('an error text is cut at the protocol limit, so its snapshot still parses', async (t) => {
  const message = 'x'.repeat(maxErrorLength * 3);
  const runner = new CollectionRunner({
    source: { ping: async () => undefined },
    collectors: [{ name: 'failing', collect: async () => Promise.reject(new Error(message)) }],
    logger,
  });
  const unreachableRunner = new CollectionRunner({ source: { ping: async () => Promise.reject(new Error(message)) }, collectors: [], logger });
  const failedCollector = await runner.collect(new Date());
  const unreachableSnapshot = await unreachableRunner.collect(new Date());
  t.equal(failedCollector.collectors[0]?.error?.length, maxErrorLength, "a collector's error");
  t.equal(unreachableSnapshot.error?.length, maxErrorLength, "an unreachable database's error");
  const batch = { batch_id: newBatchId(), spool_dropped_total: 0, samples: [failedCollector, unreachableSnapshot].map((snapshot) => ({ database_id: 'db_x', snapshot })) };
  const parsed = sampleBatchSchema(metricCatalog).safeParse(JSON.parse(JSON.stringify(batch)));
  t.ok(parsed.success, parsed.error?.message ?? 'parses');
});
