import { join } from 'node:path';
import t from 'tap';
import type { Assignment } from '../../agent/assignments/assignment.js';
import { AssignmentStore } from '../../agent/assignments/assignment-store.js';
import type { DatabaseCollection } from '../../agent/collection/database-collection.js';
import { HttpTransport } from '../../agent/delivery/http-transport.js';
import { openSpool } from '../../agent/delivery/spool.js';
import { startAgent, type StartAgentOptions } from '../../agent/start-agent.js';
import { freePort, startBatchReceiver } from '../helpers/batch-receiver.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { makeSnapshot } from '../helpers/snapshot-factory.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitUntil } from '../helpers/wait-until.js';

function assignment(id: string, interval_seconds = 1): Assignment {
  return {
    id,
    name: id,
    type: 'postgresql',
    interval_seconds,
    connection: { host: '127.0.0.1', port: 5432, database: 'test', username: 'dbmon', password: null, ssl: false },
  };
}

/** Collections that make a snapshot per cycle without a database; they record being closed. */
function fakeCollections() {
  const closed: string[] = [];
  const createCollection = (database: Assignment): DatabaseCollection => ({
    collect: async (now) => makeSnapshot(now),
    close: async () => void closed.push(database.id),
  });
  return { closed, createCollection };
}

async function setUp(t: { teardown(fn: () => unknown): void }, port?: number) {
  const dir = tempDir(t);
  const receiver = await startBatchReceiver({ dbFile: join(dir, 'received.db'), ...(port && { port }) });
  t.teardown(receiver.close);
  return { dir, receiver };
}

function agentOptions(dir: string, url: string, overrides: Partial<StartAgentOptions> = {}): StartAgentOptions {
  const transport = new HttpTransport({ serverUrl: url, agentKey: 'dbm_sak_x', version: 'test', hostname: 'h', timeoutMs: 2000 });
  return {
    transport,
    assignments: transport,
    spoolPath: join(dir, 'spool.db'),
    maxSpoolSamples: 1000,
    logger: captureLogger().logger,
    backoff: { baseMs: 20, capMs: 200 },
    statusLogIntervalMs: 0,
    ...overrides,
  };
}

t.test('assigned databases are collected on schedule and delivered; assignment changes apply', async (t) => {
  const { dir, receiver } = await setUp(t);
  receiver.setAssignments({ agent_id: 'agent_1', databases: [assignment('db_a'), assignment('db_b')] });
  const fakes = fakeCollections();
  const agent = startAgent(agentOptions(dir, receiver.url, { createCollection: fakes.createCollection }));
  t.teardown(() => agent.stop());

  const from = (id: string) => receiver.storedSamples().filter((sample) => sample.database_id === id).length;
  await waitUntil('two samples of each database', async () => from('db_a') >= 2 && from('db_b') >= 2, 15_000);
  await waitUntil('delivered batches to leave the spool', async () => agent.status().spool.batches === 0, 15_000);

  receiver.setAssignments({ agent_id: 'agent_1', databases: [assignment('db_b')] });
  agent.refreshAssignments();
  await waitUntil('db_a to be closed', async () => fakes.closed.includes('db_a'), 15_000);
  const aAfter = from('db_a');
  const bAfter = from('db_b');
  await waitUntil('more samples of db_b', async () => from('db_b') >= bAfter + 2, 15_000);
  t.equal(from('db_a'), aAfter, 'an unassigned database is no longer collected');
  t.same(Object.keys(agent.status().cycles), ['db_b']);

  await agent.stop();
  t.same(fakes.closed.sort(), ['db_a', 'db_b'], 'stop closes every connection');
  const samples = receiver.storedSamples();
  t.equal(new Set(samples.map((s) => `${s.database_id} ${s.timestamp}`)).size, samples.length, 'no sample stored twice');
});

t.test('while the server is down, local databases are collected and kept in the spool; delivered when it is back', async (t) => {
  const port = await freePort();
  const dir = tempDir(t);
  const fakes = fakeCollections();
  const log = captureLogger();
  const agent = startAgent(
    agentOptions(dir, `http://127.0.0.1:${port}`, {
      createCollection: fakes.createCollection,
      localDatabases: [assignment('db_local')],
      logger: log.logger,
    }),
  );
  t.teardown(() => agent.stop());
  await waitUntil('two samples in the spool', async () => agent.status().spool.samples >= 2, 15_000);
  t.ok(log.lines.some((line) => line.msg === 'cannot fetch assignments; retrying'), 'assignment fetches are retried');

  const { receiver } = await setUp(t, port);
  receiver.setAssignments({ agent_id: 'agent_1', databases: [assignment('db_server')] });
  await waitUntil('samples of both databases', async () => {
    const ids = new Set(receiver.storedSamples().map((sample) => sample.database_id));
    return ids.has('db_local') && ids.has('db_server');
  }, 15_000);
  await agent.stop();
  t.ok(receiver.storedSamples().filter((sample) => sample.database_id === 'db_local').length >= 2, 'the backlog was delivered');
});

t.test('restarted while the server is down, the agent collects the assignments it saved', async (t) => {
  const port = await freePort();
  const { dir, receiver } = await setUp(t, port);
  receiver.setAssignments({ agent_id: 'agent_1', databases: [assignment('db_saved')] });
  const storeFile = join(dir, 'assignments.sealed');
  const options = (log = captureLogger()) =>
    agentOptions(dir, receiver.url, {
      createCollection: fakeCollections().createCollection,
      assignmentStore: new AssignmentStore(storeFile, 'dbm_sak_x', log.logger),
      logger: log.logger,
    });

  const first = startAgent(options());
  await waitUntil('a sample of the assigned database', async () => receiver.storedSamples().length >= 1, 15_000);
  await first.stop();
  await receiver.close();

  const log = captureLogger();
  const second = startAgent(options(log));
  t.teardown(() => second.stop());
  await waitUntil('the saved database to be collected into the spool', async () => (second.status().cycles['db_saved']?.runs ?? 0) >= 2, 15_000);
  t.ok(second.status().spool.samples >= 2, 'kept for the server');
  t.ok(log.lines.some((line) => line.msg === 'collecting the saved assignments until the server answers'));
  t.ok(log.lines.some((line) => line.msg === 'cannot fetch assignments; retrying'), 'while the server stays down');

  const { receiver: back } = await setUp(t, port);
  back.setAssignments({ agent_id: 'agent_1', databases: [assignment('db_saved')] });
  await waitUntil('the backlog to be delivered', async () => back.storedSamples().filter((s) => s.database_id === 'db_saved').length >= 2, 15_000);
});

t.test('stop() spools what running cycles collect, and a restart sends it', async (t) => {
  const port = await freePort();
  const dir = tempDir(t);
  let started = 0;
  const slow = (database: Assignment): DatabaseCollection => ({
    collect: async (now) => {
      started += 1;
      await new Promise((resolve) => setTimeout(resolve, 300));
      return makeSnapshot(now);
    },
    close: async () => void database,
  });
  const agent = startAgent(agentOptions(dir, `http://127.0.0.1:${port}`, { createCollection: slow, localDatabases: [assignment('db_local')] }));
  await waitUntil('a cycle to start', async () => started === 1, 15_000);
  await agent.stop();
  const spool = openSpool(join(dir, 'spool.db'), { maxSamples: 1000 });
  t.equal(spool.stats().samples, 1, 'the cycle running at stop was spooled, and the spool closed');
  spool.close();

  const { receiver } = await setUp(t, port);
  const again = startAgent(agentOptions(dir, receiver.url, { createCollection: fakeCollections().createCollection }));
  t.teardown(() => again.stop());
  await waitUntil('the spooled sample to arrive', async () => receiver.storedSamples().length === 1, 15_000);
});
