import t, { type Test } from 'tap';
import { postgresCollectors } from '../../../agent/collection/collectors/postgres/postgres-collectors.js';
import type { Snapshot } from '../../../common/agent-protocol/snapshot.js';
import { collectionRunner, postgresSourceOn } from '../../helpers/collection-under-test.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { createServiceKey, createTenant, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { createThrowawayPostgresDatabase } from '../../helpers/throwaway-postgres-database.js';

const minute = 60_000;

async function registeredDatabase(t: Pick<Test, 'equal'>, server: TestServer, now: Date) {
  const tenant = createTenant(server.services, now);
  const agentKey = createServiceKey(server.services, tenant.orgId, now, { scopes: ['agent'], account: 'agent' });
  const agentId: string = (await server.request('GET', '/v1/agent/assignments', { key: agentKey })).body.agent_id;
  const connection = { host: 'h', database: 'orders', username: 'u' };
  const created = await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: { name: 'orders', type: 'postgresql', agent_id: agentId, connection },
  });
  t.equal(created.status, 201);
  const databaseId: string = created.body.id;
  let batches = 0;
  return {
    tenant,
    databaseId,
    async push(snapshots: Snapshot[]) {
      const batch_id = `latency-source-batch-${String(++batches).padStart(4, '0')}`;
      const samples = snapshots.map((snapshot) => ({ database_id: databaseId, snapshot }));
      const response = await server.request('POST', '/v1/agent/samples', { key: agentKey, body: { batch_id, samples } });
      t.equal(response.body.stored, snapshots.length, JSON.stringify(response.body));
    },
    latency: async (range: string) =>
      (await server.request('GET', `/v1/databases/${databaseId}/metrics?range=${range}`, { key: tenant.key })).body.metrics.latency,
  };
}

t.test('PostgreSQL: the latency of a range says its source though the latest interval was idle', async (t) => {
  const database = await createThrowawayPostgresDatabase();
  const runner = collectionRunner(postgresSourceOn(t, database), postgresCollectors);
  const client = await database.connect();
  const start = new Date(Date.now() - 3 * minute);
  const at = (minutes: number) => new Date(start.getTime() + minutes * minute);
  const snapshots = [await runner.collect(at(0))];
  for (let i = 0; i < 200; i++) await client.query('SELECT $1::int', [i]);
  snapshots.push(await runner.collect(at(1)));
  snapshots.push(await runner.collect(at(2)));
  t.equal(snapshots[1]!.metrics.latency.source, 'estimate', 'the interval with load');
  t.equal(snapshots[2]!.metrics.latency.avg_query_time_ms, null, 'the idle interval has no latency');

  const server = await startTestServer({ now: at(2.5) });
  t.teardown(server.close);
  const registered = await registeredDatabase(t, server, at(2.5));
  await registered.push(snapshots);
  for (const range of ['5m', '1h', '30d']) {
    const latency = await registered.latency(range);
    t.ok(latency.avg_query_time_ms > 0, `${range}: avg ${latency.avg_query_time_ms}`);
    t.equal(latency.source, 'estimate', `${range}: a latency is given, so is its source`);
  }
  const idleOnly = await registered.latency('1m');
  t.same(idleOnly, { avg_query_time_ms: null, p95_query_time_ms: null, p99_query_time_ms: null, source: null }, 'no latency, no source');
});

t.test('a range is a histogram only when every interval in it was', async (t) => {
  const now = new Date();
  const server = await startTestServer({ now });
  t.teardown(server.close);
  const registered = await registeredDatabase(t, server, now);
  const sample = (minutesAgo: number, source: 'histogram' | 'estimate') =>
    makeSnapshot(new Date(now.getTime() - minutesAgo * minute), {
      metrics: { latency: { avg_query_time_ms: 2, p95_query_time_ms: 5, p99_query_time_ms: 9, source } },
    });
  await registered.push([sample(3, 'estimate'), sample(2, 'histogram'), sample(1, 'histogram')]);
  t.equal((await registered.latency('150s')).source, 'histogram');
  t.equal((await registered.latency('5m')).source, 'estimate', 'one estimated interval makes the whole an estimate');
});
