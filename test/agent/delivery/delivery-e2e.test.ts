import { join } from 'node:path';
import t from 'tap';
import { openSpool } from '../../../agent/delivery/spool.js';
import { spawnAgent, type AgentProcess } from '../../helpers/spawn-agent.js';
import { startTcpForwarder } from '../../helpers/tcp-forwarder.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { createServiceKey, createTenant, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { waitUntil } from '../../helpers/wait-until.js';

// Three agent starts from TypeScript source and a one-minute server outage: longer than the default.
t.setTimeout(360_000);

const outageMs = 60_000;

type Line = Record<string, unknown>;
const spooled = (agent: AgentProcess): Line[] => agent.lines.filter((line) => line.msg === 'sample spooled');
const delivered = (agent: AgentProcess): Line[] => agent.lines.filter((line) => line.msg === 'batch delivered');
const sampleKey = (databaseId: unknown, timestamp: unknown): string => `${String(databaseId)} ${Date.parse(String(timestamp))}`;

t.test('kill -9 in mid-send and a server outage: every sample taken is stored exactly once', async (t) => {
  const serverState = tempDir(t, 'dbmon-e2e-server-');
  const agentState = tempDir(t, 'dbmon-e2e-agent-');
  let server: TestServer | undefined = await startTestServer({ stateDir: serverState });
  t.teardown(() => server?.close());
  // The test server's clock stands still unless moved; keep it on real time.
  const tick = setInterval(() => server && (server.clock.now = new Date()), 100);
  t.teardown(() => clearInterval(tick));

  const tenant = createTenant(server.services, server.clock.now);
  const agentKey = createServiceKey(server.services, tenant.orgId, server.clock.now, { scopes: ['agent'], account: 'e2e-agent' });
  const first = await server.request('GET', '/v1/agent/assignments', { key: agentKey });
  const agentId: string = first.body.agent_id;
  const databaseIds: string[] = [];
  for (const name of ['e2e-one', 'e2e-two']) {
    const created = await server.request('POST', '/v1/databases', {
      key: tenant.key,
      body: {
        name,
        type: 'postgresql',
        agent_id: agentId,
        connection: { host: '127.0.0.1', port: 5432, database: 'test', username: 'postgres' },
        monitoring: { interval_seconds: 10 },
      },
    });
    t.equal(created.status, 201, created.text);
    databaseIds.push(created.body.id);
  }
  // The API's shortest interval is 10 s; one second keeps this test short.
  server.db.prepare('UPDATE databases SET interval_seconds = 1 WHERE agent_id = ?').run(agentId);

  const storedSamples = () =>
    server!.db
      .prepare<[string], { database_id: string; ts: number }>(
        'SELECT database_id, ts FROM samples WHERE database_id IN (SELECT id FROM databases WHERE agent_id = ?)',
      )
      .all(agentId);
  const storedBatchIds = () => server!.db.prepare<[], { batch_id: string }>('SELECT batch_id FROM ingested_batches').all().map((row) => row.batch_id);

  const forwarder = await startTcpForwarder(Number(new URL(server.url).port));
  t.teardown(() => forwarder.stop());
  const env = {
    DBMON_AGENT_SERVER_URL: `http://127.0.0.1:${forwarder.port}`,
    DBMON_AGENT_KEY: agentKey,
    DBMON_AGENT_STATE_DIR: agentState,
    DBMON_AGENT_LOG_LEVEL: 'debug',
    DBMON_AGENT_BACKOFF_INITIAL_SECONDS: '0.1',
    DBMON_AGENT_BACKOFF_MAX_SECONDS: '1',
  };
  const agents: AgentProcess[] = [];
  const start = (): AgentProcess => {
    const agent = spawnAgent(env);
    agents.push(agent);
    t.teardown(() => agent.child.kill('SIGKILL'));
    return agent;
  };
  const kill9 = async (agent: AgentProcess): Promise<void> => {
    agent.child.kill('SIGKILL');
    t.match(await agent.exited, { signal: 'SIGKILL' });
  };

  // 1. The agent collects two real PostgreSQL databases and delivers.
  const agent1 = start();
  await waitUntil('samples of both databases stored', async () => new Set(storedSamples().map((row) => row.database_id)).size === 2, 90_000);
  await waitUntil('a few more', async () => storedSamples().length >= 4, 20_000);

  // 2. kill -9 after the server stored a batch, before the agent heard the answer.
  const batchesBefore = new Set(storedBatchIds());
  forwarder.holdResponses = true;
  await waitUntil('a batch stored while its answer is held back', async () => storedBatchIds().some((id) => !batchesBefore.has(id)), 20_000);
  await kill9(agent1);
  forwarder.holdResponses = false;
  const unanswered = storedBatchIds().filter((id) => !batchesBefore.has(id));
  t.equal(unanswered.length, 1, 'exactly one batch was stored but not acknowledged');

  // 3. The restarted agent resends that batch; the server recognises it.
  const agent2 = start();
  await waitUntil('the unacknowledged batch to be resent and answered as a duplicate', async () => delivered(agent2).some((line) => line.batchId === unanswered[0] && line.duplicate === true),
    90_000,
  );
  await waitUntil('agent 2 to deliver fresh samples', async () => delivered(agent2).some((line) => line.duplicate === false), 20_000);

  // 4. The server goes down; the agent goes on collecting into its spool, and is killed -9 meanwhile.
  const outageStarted = Date.now();
  await forwarder.stop();
  await server.close();
  server = undefined;
  const spooledBeforeOutage = spooled(agent2).length;
  await waitUntil('agent 2 to spool during the outage', async () => spooled(agent2).length >= spooledBeforeOutage + 4, 20_000);
  await kill9(agent2);
  const agent3 = start();
  await waitUntil('agent 3 to find the server down', async () => agent3.lines.some((line) => line.msg === 'delivery failed; retrying'), 90_000);
  await waitUntil('agent 3 to collect its saved assignments while the server is down', async () => spooled(agent3).length >= 2, 30_000);
  const restWait = outageMs - (Date.now() - outageStarted);
  if (restWait > 0) await new Promise((resolve) => setTimeout(resolve, restWait));

  // 5. The server comes back on the same state; the backlog drains and collection resumes.
  const outageEnded = Date.now();
  server = await startTestServer({ stateDir: serverState });
  forwarder.target = Number(new URL(server.url).port);
  await forwarder.start();
  const taken = () => new Set(agents.flatMap((agent) => spooled(agent).map((line) => sampleKey(line.databaseId, line.timestamp))));
  await waitUntil('agent 3 to collect again', async () => spooled(agent3).length >= 4, 30_000);
  await waitUntil('every sample taken to be stored', async () => {
      const stored = new Set(storedSamples().map((row) => `${row.database_id} ${row.ts}`));
      return [...taken()].every((key) => stored.has(key));
    },
    30_000,
  );
  agent3.child.kill('SIGTERM');
  t.match(await agent3.exited, { code: 0 }, agent3.stderr());
  t.ok(agent3.lines.some((line) => line.msg === 'agent stopped'));

  // What the agents took = what the server stored + what still waits in the spool; nothing twice.
  const spool = openSpool(join(agentState, 'spool.db'), { maxSamples: 100_000 });
  const waiting = spool.peek(100_000).flatMap((batch) => batch.samples.map((s) => sampleKey(s.database_id, s.snapshot.timestamp)));
  spool.close();
  const stored = storedSamples().map((row) => `${row.database_id} ${row.ts}`);
  const takenKeys = taken();
  t.equal(new Set(stored).size, stored.length, 'no sample stored twice');
  t.ok(waiting.every((key) => !stored.includes(key)), 'nothing both stored and still spooled');
  const missing = [...takenKeys].filter((key) => !stored.includes(key) && !waiting.includes(key));
  t.same(missing, [], 'every sample taken is stored or still spooled');
  // A kill -9 between the spool commit and the log line can leave one sample per database unlogged.
  const unlogged = stored.filter((key) => !takenKeys.has(key));
  t.ok(unlogged.length <= 2 * databaseIds.length, `stored but never logged: ${unlogged.length}`);
  const duringOutage = [...takenKeys].filter((key) => {
    const ts = Number(key.split(' ')[1]);
    return ts > outageStarted && ts < outageEnded;
  });
  t.ok(duringOutage.length >= 3, `${duringOutage.length} samples taken while the server was down, all stored`);

  // No sample was sent twice under different batch ids: the server stored every one it was sent.
  const acks = agents.flatMap(delivered).filter((line) => line.duplicate === false);
  const sent = acks.reduce((sum, line) => sum + Number(line.samples), 0);
  const storedByAcks = acks.reduce((sum, line) => sum + Number(line.stored), 0);
  t.equal(storedByAcks, sent, 'every sample of every acknowledged batch was new to the server');
  t.equal(acks.reduce((sum, line) => sum + Number(line.rejected), 0), 0, 'none rejected');
  t.comment(`taken ${takenKeys.size} (${duringOutage.length} during the outage), stored ${stored.length}, still spooled ${waiting.length}, batches ${acks.length}`);
});
