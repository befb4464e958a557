import t from 'tap';
import type { StatementStats } from '../../../common/agent-protocol/snapshot.js';
import { runPass } from '../../../server/jobs/background-job.js';
import { queryIdOf } from '../../../server/queries/query-id.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { createServiceKey, createTenant, startTestServer } from '../../helpers/test-server.js';

const minute = 60_000;
const hour = 60 * minute;

const start = new Date('2026-11-22T12:00:00Z');
const server = await startTestServer({ now: start });
t.teardown(server.close);
const tenant = createTenant(server.services, start);
const agentKey = createServiceKey(server.services, tenant.orgId, start, { scopes: ['agent'], account: 'queries-agent' });
const agentId: string = (await server.request('GET', '/v1/agent/assignments', { key: agentKey })).body.agent_id;
const createDatabase = async (name: string) =>
  (
    await server.request('POST', '/v1/databases', {
      key: tenant.key,
      body: { name, type: 'postgresql', agent_id: agentId, connection: { host: 'h', database: 'd', username: 'u' } },
    })
  ).body.id as string;
const databaseId = await createDatabase('orders');
const otherId = await createDatabase('billing');

const stat = (source: string, calls: number, total: number, max: number | null = null): StatementStats => ({
  query_id_source: source,
  query: `SELECT * FROM t${source} WHERE a = $1`,
  calls,
  total_time_ms: total,
  max_time_ms: max,
  rows: calls,
});
let batch = 0;
const ingest = async (database: string, at: Date, statements: StatementStats[] | undefined, reachable = true) => {
  const snapshot = makeSnapshot(at, { reachable, ...(statements && { statements }) });
  const response = await server.request('POST', '/v1/agent/samples', {
    key: agentKey,
    body: { batch_id: `queries-batch-${String(++batch).padStart(6, '0')}`, samples: [{ database_id: database, snapshot }] },
  });
  if (response.body.stored !== 1) throw new Error(`sample not stored: ${response.text}`);
};
const list = (query = '', key = tenant.key, database = databaseId) => server.request('GET', `/v1/databases/${database}/queries${query}`, { key });

// 25 h ago (outside the default range), then intervals 3 h, 2 h, 30 min and 10 min ago.
await ingest(databaseId, new Date(start.getTime() - 25 * hour), [stat('111', 1000, 1000)]);
await ingest(databaseId, new Date(start.getTime() - 3 * hour), [stat('111', 10, 50, 9), stat('222', 2, 400, 300)]);
await ingest(databaseId, new Date(start.getTime() - 2 * hour), [stat('111', 20, 30, 4), stat('333', 500, 50, null)]);
await ingest(databaseId, new Date(start.getTime() - 30 * minute), [stat('222', 1, 100, 100)]);
await ingest(databaseId, new Date(start.getTime() - 10 * minute), []);
await ingest(otherId, new Date(start.getTime() - 10 * minute), [stat('111', 7, 7)]);

t.test('numbers are sums of the interval deltas over the range (default 24 h)', async (t) => {
  const response = await list();
  t.equal(response.status, 200);
  t.equal(response.body.range, '24h');
  t.equal(response.body.sort, 'total_time');
  t.same(
    response.body.data.map((query: { fingerprint: string; calls: number; total_time_ms: number }) => [query.fingerprint, query.calls, query.total_time_ms]),
    [
      ['222', 3, 500],
      ['111', 30, 80],
      ['333', 500, 50],
    ],
    'by total time; the interval 25 h ago is out of range',
  );
  const first = response.body.data[1];
  t.equal(first.id, queryIdOf(databaseId, '111'));
  t.match(first.id, /^query_[0-9A-Za-z]{22}$/);
  t.equal(first.mean_time_ms, 80 / 30);
  t.equal(first.max_time_ms, 9, 'the longest call within the range');
  t.equal(first.rows, 30);
  t.equal(first.query, 'SELECT * FROM t111 WHERE a = $1');
  t.equal(first.first_seen_at, new Date(start.getTime() - 25 * hour).toISOString(), 'first seen within retention');
  t.equal(first.last_seen_at, new Date(start.getTime() - 2 * hour).toISOString());
  t.equal(response.body.data[2].max_time_ms, null, 'no max when the engine reported none');
});

t.test('range, sort and limit', async (t) => {
  const lastHour = await list('?range=1h');
  t.same(lastHour.body.data.map((query: { fingerprint: string }) => query.fingerprint), ['222']);
  t.equal(lastHour.body.data[0].calls, 1);
  const all = await list('?range=30d');
  t.equal(all.body.data.find((query: { fingerprint: string }) => query.fingerprint === '111').calls, 1030);
  const sorted = async (sort: string) => (await list(`?sort=${sort}`)).body.data.map((query: { fingerprint: string }) => query.fingerprint);
  t.same(await sorted('calls'), ['333', '111', '222']);
  t.same(await sorted('mean_time'), ['222', '111', '333']);
  t.same(await sorted('max_time'), ['222', '111', '333'], 'unknown maxima last');
  t.equal((await list('?limit=1')).body.data.length, 1);
  for (const bad of ['?sort=rows', '?limit=0', '?limit=101', '?range=1y', '?other=1']) {
    const refused = await list(bad);
    t.equal(refused.status, 400, bad);
  }
});

t.test('ids are stable per statement and database', async (t) => {
  const other = await list('', tenant.key, otherId);
  t.equal(other.body.data[0].id, queryIdOf(otherId, '111'));
  t.not(other.body.data[0].id, queryIdOf(databaseId, '111'));
  t.equal(queryIdOf(databaseId, '111'), queryIdOf(databaseId, '111'));
});

t.test('access: the queries scope, the organization, an existing database', async (t) => {
  const noScope = createServiceKey(server.services, tenant.orgId, start, { scopes: ['databases'], account: 'no-queries' });
  t.equal((await list('', noScope)).status, 403);
  const stranger = createTenant(server.services, start);
  t.equal((await list('', stranger.key)).status, 404);
  t.equal((await list('', tenant.key, 'db_doesnotexist0000000000')).status, 404);
});

t.test('an unreachable snapshot stores no statement interval', async (t) => {
  await ingest(databaseId, new Date(start.getTime() - 5 * minute), [stat('444', 1, 1)], false);
  t.notOk((await list()).body.data.some((query: { fingerprint: string }) => query.fingerprint === '444'));
});

t.test('an interval starts at the previous reachable snapshot', async (t) => {
  const intervalStart = server.db.prepare('SELECT interval_start_ts FROM statement_intervals WHERE database_id = ? AND ts = ?').pluck();
  t.equal(intervalStart.get(databaseId, start.getTime() - 3 * hour), start.getTime() - 25 * hour);
  t.equal(intervalStart.get(databaseId, start.getTime() - 30 * minute), start.getTime() - 2 * hour);
  t.equal(intervalStart.get(otherId, start.getTime() - 10 * minute), null, 'the first interval has no start');
  await ingest(otherId, new Date(start.getTime() - 5 * minute), [], false);
  await ingest(otherId, new Date(start.getTime() - 4 * minute), []);
  await ingest(otherId, new Date(start.getTime() - 3 * minute), [stat('555', 3, 3)]);
  t.equal(intervalStart.get(otherId, start.getTime() - 3 * minute), start.getTime() - 4 * minute, 'one in which no statement ran counts');
  await ingest(otherId, new Date(start.getTime() - 2 * minute), [stat('555', 1, 1)], false);
  await ingest(otherId, new Date(start.getTime() - 1 * minute), [stat('555', 2, 2)]);
  t.equal(intervalStart.get(otherId, start.getTime() - 1 * minute), start.getTime() - 3 * minute, 'an unreachable one does not');
});

t.test('a statement first recorded in a rolled-back transaction is recorded again', async (t) => {
  const at = start.getTime() - 6 * minute;
  t.throws(() =>
    server.services.transaction(() => {
      server.services.queries.recordInterval(otherId, at, [stat('777', 4, 8)]);
      throw new Error('a later step of the batch failed');
    }),
  );
  await ingest(otherId, new Date(at), [stat('777', 4, 8)]);
  t.match((await list('', tenant.key, otherId)).body.data.find((query: { fingerprint: string }) => query.fingerprint === '777'), { calls: 4, total_time_ms: 8 });
});

t.test('folded into hours of per-minute sums, every answer reads the same', async (t) => {
  const answers = async () => {
    const out: unknown[] = [];
    for (const database of [databaseId, otherId]) {
      for (const query of ['', '?range=1h', '?range=30d', '?sort=calls', '?sort=mean_time', '?sort=max_time', '?range=150m']) {
        out.push((await list(query, tenant.key, database)).body);
      }
    }
    return out;
  };
  const mean = (fingerprint: string, from: number, to: number) => server.services.queries.meanTime(queryIdOf(databaseId, fingerprint), from, to);
  const before = await answers();
  const means = [mean('111', start.getTime() - 4 * hour, start.getTime()), mean('111', start.getTime() - 150 * minute, start.getTime()), mean('222', start.getTime() - 2 * hour, start.getTime())];
  const open = server.db.prepare('SELECT count(*) FROM statement_intervals').pluck();
  const openBefore = open.get() as number;
  runPass(server.services.statementFold, start);
  t.equal(open.get(), 1, 'every interval whose minute closed two minutes ago is folded');
  t.ok(openBefore > 1);
  t.equal(server.db.prepare('SELECT count(*) FROM statement_hours WHERE database_id = ?').pluck().get(databaseId), 4, 'one row per hour');
  t.same(await answers(), before);
  t.same([mean('111', start.getTime() - 4 * hour, start.getTime()), mean('111', start.getTime() - 150 * minute, start.getTime()), mean('222', start.getTime() - 2 * hour, start.getTime())], means);
  t.same(means, [30 / 20, null, 100], 'only intervals wholly inside the window');

  // A late interval of a folded hour: open until the next pass merges it into its hour.
  await ingest(databaseId, new Date(start.getTime() - 3 * hour + 20_000), [stat('111', 5, 10, 20)]);
  const merged = async () => (await list('?sort=calls')).body.data.find((query: { fingerprint: string }) => query.fingerprint === '111');
  t.match(await merged(), { calls: 35, total_time_ms: 90, max_time_ms: 20 });
  runPass(server.services.statementFold, start);
  t.equal(open.get(), 1);
  t.match(await merged(), { calls: 35, total_time_ms: 90, max_time_ms: 20 }, 'merged into its hour');
});

t.test('retention follows the raw samples', async (t) => {
  // Seven days on, less an hour: only the interval that ended 30 min before the start is kept.
  runPass(server.services.retention, new Date(start.getTime() + 7 * 24 * hour - hour));
  const remaining = server.db.prepare('SELECT fingerprint FROM statements WHERE database_id = ? ORDER BY fingerprint').pluck().all(databaseId);
  t.same(remaining, ['222'], 'statements whose intervals all expired are gone');
  t.equal(server.db.prepare('SELECT count(*) FROM statement_hours WHERE database_id = ?').pluck().get(databaseId), 1, 'the hours that ended before the cutoff are gone');
  t.same((await list('?range=30d')).body.data.map((query: { fingerprint: string; calls: number }) => [query.fingerprint, query.calls]), [['222', 1]]);
});

t.test('deleting the database removes its statements', async (t) => {
  await server.request('DELETE', `/v1/databases/${otherId}`, { key: tenant.key });
  for (const table of ['statements', 'statement_intervals', 'statement_hours']) {
    t.equal(server.db.prepare(`SELECT count(*) FROM ${table} WHERE database_id = ?`).pluck().get(otherId), 0, table);
  }
});
