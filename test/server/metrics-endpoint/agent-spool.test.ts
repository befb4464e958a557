import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { HttpTransport } from '../../../agent/delivery/http-transport.js';
import { Pusher } from '../../../agent/delivery/pusher.js';
import { openSpool } from '../../../agent/delivery/spool.js';
import type { Transport } from '../../../agent/delivery/transport.js';
import { AgentsRepository } from '../../../server/agents/agents-repository.js';
import { composeServices } from '../../../server/compose-services.js';
import { migrate, readMigrations } from '../../../server/storage/migrate.js';
import { openDatabase } from '../../../server/storage/open-database.js';
import { captureLogger } from '../../helpers/capture-logger.js';
import { promtoolProblems, scrapeMetrics, seriesValue } from '../../helpers/scrape-metrics.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { createServiceKey, createTenant, startTestServer } from '../../helpers/test-server.js';
import { waitUntil } from '../../helpers/wait-until.js';

const token = 'scrape-token-0123456789';
const start = new Date('2026-11-24T09:00:00Z');
const server = await startTestServer({ now: start, metricsToken: token });
t.teardown(server.close);
const tenant = createTenant(server.services, start);
const agentKey = createServiceKey(server.services, tenant.orgId, start, { scopes: ['agent'], account: 'spool-host' });
const agentHeaders = { 'user-agent': 'dbmon-agent/1.2.3', 'x-dbmon-agent-hostname': 'spool-host' };
const agentId: string = (await server.request('GET', '/v1/agent/assignments', { key: agentKey, headers: agentHeaders })).body.agent_id;
const databaseId: string = (
  await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: { name: 'orders', type: 'postgresql', agent_id: agentId, connection: { host: 'pg.internal', database: 'orders', username: 'monitor' } },
  })
).body.id;
const agentLabels = `{agent_id="${agentId}",agent_name="spool-host"}`;

const scrape = () => scrapeMetrics(server, token);

async function agentRecord() {
  const response = await server.request('GET', '/v1/agents', { key: tenant.key });
  return response.body.data.find((agent: { id: string }) => agent.id === agentId);
}

function batch(batchId: string, fields: Record<string, unknown>) {
  return { batch_id: batchId, ...fields, samples: [{ database_id: databaseId, snapshot: makeSnapshot(new Date(start.getTime() - 60_000)) }] };
}

t.test('before an agent reports its spool: null on the API, no series on /metrics', async (t) => {
  t.match(await agentRecord(), { spool_batches: null, spool_oldest_batch_at: null });
  const text = await scrape();
  t.notMatch(text, 'dbmon_agent_spool_batches{');
  t.notMatch(text, 'dbmon_agent_spool_oldest_batch_age_seconds{');
});

t.test('an age or a depth out of bounds is refused with the contract body, and nothing of the batch is kept', async (t) => {
  for (const fields of [{ spool_batches: 1, spool_oldest_batch_age_seconds: 1e300 }, { spool_batches: -1 }, { spool_batches: 1.5 }]) {
    const response = await server.request('POST', '/v1/agent/samples', { key: agentKey, headers: agentHeaders, body: batch('refused-batch-00000001', fields) });
    t.equal(response.status, 400, JSON.stringify(fields));
    t.equal(response.body.error.type, 'invalid_request');
  }
  t.equal(server.db.prepare('SELECT count(*) FROM ingested_batches WHERE batch_id = ?').pluck().get('refused-batch-00000001'), 0);
  t.match(await agentRecord(), { spool_batches: null, spool_oldest_batch_at: null });
});

t.test("the real pusher, spool and HTTP transport: each batch's backlog behind it, on /v1/agents and /metrics", async (t) => {
  let appendedAt = start;
  const spool = openSpool(join(tempDir(t), 'spool.db'), { maxSamples: 100, now: () => appendedAt });
  t.teardown(() => spool.close());
  for (const secondsBefore of [60, 50, 35]) {
    appendedAt = new Date(start.getTime() - secondsBefore * 1000);
    spool.append([{ database_id: databaseId, snapshot: makeSnapshot(appendedAt) }]);
  }
  // The agent's clock runs 1 h ahead of the server's: only the ages it reports count.
  const agentNow = () => new Date(start.getTime() + 3_600_000);
  const http = new HttpTransport({ serverUrl: server.url, agentKey, version: '1.2.3', hostname: 'spool-host', timeoutMs: 5_000 });
  let release!: () => void;
  const firstAcknowledged = new Promise<void>((resolve) => {
    release = resolve;
  });
  let sent = 0;
  // Holds delivery after the first batch, so the server's view of the backlog can be read mid-drain.
  const held: Transport = {
    sendBatch: async (body, signal) => {
      sent += 1;
      if (sent === 2) await firstAcknowledged;
      return http.sendBatch(body, signal);
    },
  };
  const pusher = new Pusher({ spool, transport: held, logger: captureLogger().logger, limits: { maxSamples: 1, maxBytes: 1e6 }, now: agentNow });
  pusher.start();
  t.teardown(() => pusher.stop());

  await waitUntil('the first batch acknowledged', async () => spool.stats().batches === 2, 10_000);
  const receivedAt = start.getTime();
  t.match(await agentRecord(), { spool_batches: 2, spool_oldest_batch_at: new Date(receivedAt - 3_650_000).toISOString() }, 'behind the first: 2 batches, the oldest appended 50 s before it (by the agent), 1 h earlier in its clock');
  server.clock.now = new Date(start.getTime() + 5_000);
  let text = await scrape();
  t.equal(seriesValue(text, `dbmon_agent_spool_batches${agentLabels}`), 2);
  t.equal(seriesValue(text, `dbmon_agent_spool_oldest_batch_age_seconds${agentLabels}`), 3_655, 'the age grows on the server while the agent is silent');
  t.equal(promtoolProblems(text), '');

  release();
  await waitUntil('the spool to drain', async () => spool.stats().batches === 0, 10_000);
  t.match(await agentRecord(), { spool_batches: 0, spool_oldest_batch_at: null, spool_dropped_total: 0 });
  text = await scrape();
  t.equal(seriesValue(text, `dbmon_agent_spool_batches${agentLabels}`), 0);
  t.equal(seriesValue(text, `dbmon_agent_spool_oldest_batch_age_seconds${agentLabels}`), 0);
  t.equal(server.db.prepare('SELECT count(*) FROM samples WHERE database_id = ?').pluck().get(databaseId), 3);
});

t.test('a batch from an older agent (no spool depth) leaves the last report as it was', async (t) => {
  const response = await server.request('POST', '/v1/agent/samples', { key: agentKey, headers: agentHeaders, body: batch('older-agent-batch-0001', { spool_dropped_total: 4 }) });
  t.equal(response.status, 200);
  t.match(await agentRecord(), { spool_batches: 0, spool_oldest_batch_at: null, spool_dropped_total: 4 });
  const bare = await server.request('POST', '/v1/agent/samples', { key: agentKey, headers: agentHeaders, body: batch('older-agent-batch-0002', {}) });
  t.equal(bare.status, 200);
  t.match(await agentRecord(), { spool_batches: 0, spool_dropped_total: 4 });
  const depthOnly = await server.request('POST', '/v1/agent/samples', { key: agentKey, headers: agentHeaders, body: batch('depth-only-batch-0001', { spool_batches: 2 }) });
  t.equal(depthOnly.status, 200);
  t.match(await agentRecord(), { spool_batches: 2, spool_oldest_batch_at: null, spool_dropped_total: 4 }, 'a depth without an age: no oldest time');
});

t.test('an agent stored before migration 0029 upgrades in place, its spool depth unknown until it reports', async (t) => {
  const db = openDatabase(join(tempDir(t), 'state.db'));
  t.teardown(() => db.close());
  migrate(db);
  const { services } = composeServices(db, randomBytes(32), { startedAt: start });
  const orgId = createTenant(services, start).orgId;
  createServiceKey(services, orgId, start, { scopes: ['agent'], account: 'old-host' });
  const apiKeyId = db.prepare('SELECT id FROM api_keys WHERE org_id = ? ORDER BY created_at DESC LIMIT 1').pluck().get(orgId) as string;
  const agents = new AgentsRepository(db);
  const at = start.toISOString();
  const row = { id: 'agent_old', org_id: orgId, api_key_id: apiKeyId, name: 'old-host', hostname: null, version: '1.0.0', spool_dropped_total: 3, spool_batches: null, spool_oldest_batch_at: null, last_seen_at: at, created_at: at };
  agents.insert(row);
  db.exec('ALTER TABLE agents DROP COLUMN spool_batches; ALTER TABLE agents DROP COLUMN spool_oldest_batch_at; DELETE FROM schema_migrations WHERE version = 29');
  t.same(migrate(db, readMigrations(), start, { backupDir: null }).map((applied) => applied.version), [29]);
  t.same(agents.all(), [row]);
});
