import t, { type Test } from 'tap';
import { metricCatalog } from '../../../common/metric-catalog.js';
import { runPass } from '../../../server/jobs/background-job.js';
import { SamplesRepository } from '../../../server/metrics/samples-repository.js';
import { SealJob } from '../../../server/metrics/seal-job.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { createTenant, startTestServer, type TestServer } from '../../helpers/test-server.js';

const hour = 3_600_000;
const now = new Date('2026-11-22T12:00:00Z');
/** Samples every 10 s from 07:59:30 to 11:59:50: hours 07 to 10 closed, 11 open. */
const from = now.getTime() - 4 * hour - 30_000;
const count = 4 * 360 + 3;

/** Values off their stored steps (so a block rounds them), some samples unreachable, latency sources mixed. */
function snapshotAt(i: number, ts = from + i * 10_000) {
  const reachable = i % 23 !== 7;
  return makeSnapshot(new Date(ts), {
    reachable,
    metrics: reachable
      ? {
          cpu_usage: (i % 100) * 0.123456,
          connections: { active: i % 7, idle: 1, total: (i % 7) + 1, max: 10 },
          throughput: { queries_per_second: 10 + (i % 9) * 0.25, transactions_per_second: i % 13 === 0 ? null : (i % 5) * 1.00049 },
          latency: { avg_query_time_ms: 1.5 + (i % 11) * 0.3333, p95_query_time_ms: 4.00071, p99_query_time_ms: i % 3 ? 9.9999 : null, source: i % 4 ? 'histogram' : 'estimate' },
        }
      : { cpu_usage: null, connections: { active: null, idle: null, total: null, max: null } },
  });
}

async function fleetOfOne(server: TestServer) {
  const tenant = createTenant(server.services, now);
  const created = await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: { name: 's', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' }, monitoring: { interval_seconds: 10 } },
  });
  const databaseId: string = created.body.id;
  const samples = Array.from({ length: count }, (_, i) => ({ database_id: databaseId, snapshot: snapshotAt(i) }));
  for (let start = 0; start < samples.length; start += 500) {
    server.services.ingest.ingest({ kind: 'embedded' }, { batch_id: `b-${start}`, samples: samples.slice(start, start + 500) }, now);
  }
  const ingestOne = (batchId: string, ts: number) =>
    server.services.ingest.ingest({ kind: 'embedded' }, { batch_id: batchId, samples: [{ database_id: databaseId, snapshot: snapshotAt(5, ts) }] }, now);
  return { tenant, databaseId, ingestOne };
}

const blocks = (server: TestServer) => server.db.prepare('SELECT hour, block FROM sample_hours ORDER BY hour').all() as { hour: number; block: Buffer }[];
const rowCount = (server: TestServer) => server.db.prepare('SELECT count(*) FROM samples').pluck().get() as number;

/** Every number within half the finest step (0.001) of the other, or within 0.5 where the values are whole (step 1); the rest equal. */
function checkClose(t: Test, actual: unknown, expected: unknown, what: string): void {
  const off: string[] = [];
  const walk = (a: unknown, e: unknown, path: string) => {
    if (typeof a === 'number' && typeof e === 'number') {
      if (Math.abs(a - e) > 0.0005 + 1e-9 * Math.abs(e)) off.push(`${path}: ${a} vs ${e}`);
    } else if (a !== null && e !== null && typeof a === 'object' && typeof e === 'object') {
      const keys = new Set([...Object.keys(a), ...Object.keys(e)]);
      for (const key of keys) walk((a as Record<string, unknown>)[key], (e as Record<string, unknown>)[key], `${path}.${key}`);
    } else if (a !== e) {
      off.push(`${path}: ${String(a)} vs ${String(e)}`);
    }
  };
  walk(actual, expected, '');
  t.same(off.slice(0, 5), [], `${what}: the same within half a step`);
}

t.test('the seal job seals the closed hours the rollups folded, in slices, and has nothing more to do after', async (t) => {
  const server = await startTestServer({ now });
  t.teardown(server.close);
  await fleetOfOne(server);
  runPass(server.services.seal, now);
  t.equal(blocks(server).length, 0, 'nothing sealed before the rollup job folded the rows');

  runPass(server.services.rollups, now);
  let slices = 1;
  while (server.services.seal.slice(now, 0)) slices++;
  t.ok(slices > 2, `one hour per slice when the budget is spent (${slices} slices)`);
  const sealed = blocks(server);
  t.same(
    sealed.map((block) => new Date(block.hour).toISOString()),
    ['2026-11-22T07:00:00.000Z', '2026-11-22T08:00:00.000Z', '2026-11-22T09:00:00.000Z', '2026-11-22T10:00:00.000Z'],
    'every closed hour, not the open one',
  );
  t.equal(rowCount(server), 360, 'the open hour stays rows');
  runPass(server.services.seal, new Date(now.getTime() + 4 * 60_000));
  t.same(blocks(server), sealed, 'a second pass changes nothing');
  t.equal(rowCount(server), 360);
  runPass(server.services.seal, new Date(now.getTime() + 6 * 60_000));
  t.equal(rowCount(server), 0, 'an hour is sealed once the grace after its end has passed');
});

t.test('every raw read gives the same answer sealed as unsealed', async (t) => {
  const server = await startTestServer({ now });
  t.teardown(server.close);
  const { tenant, databaseId } = await fleetOfOne(server);
  runPass(server.services.rollups, now);
  const samples = new SamplesRepository(server.db, metricCatalog);
  const http = async (path: string) => {
    const response = await server.request('GET', `/v1/databases/${databaseId}${path}`, { key: tenant.key });
    t.equal(response.status, 200, path);
    return response.body;
  };
  const span = (a: number, b: number) => `from=${new Date(a).toISOString()}&to=${new Date(b).toISOString()}`;
  const reads = async () => ({
    history: await http(`/metrics/history?resolution=raw&${span(from - hour, now.getTime())}`),
    partOfAnHour: await http(`/metrics/history?resolution=raw&${span(from + 1_234_567, from + 2 * hour + 5)}`),
    rolled: await http(`/metrics/history?resolution=1m&${span(from, now.getTime())}`),
    current: await http('/metrics?range=5m'),
    wholeRange: await http('/metrics?range=5h'),
    sealedRange: await http('/metrics?range=3h'),
    limited: samples.rawSeries(databaseId, metricCatalog, from, now.getTime(), 500),
    since: samples.since(databaseId, from + hour + 5_000, metricCatalog),
    rates: samples.rangeRates(databaseId, from + 5_000, from + 3 * hour),
    latest: samples.latest(databaseId),
    latestOfEach: samples.latestOfEach(),
    lastReachedAt: samples.lastReachedAt(databaseId),
    lastReachedBefore: samples.lastReachedBefore(databaseId, from + 7 * 10_000 + 1),
  });
  const before = await reads();
  runPass(server.services.seal, now);
  t.equal(blocks(server).length, 4, 'sealed');
  const sealedReads = await reads();
  for (const key of Object.keys(before) as (keyof typeof before)[]) checkClose(t, sealedReads[key], before[key], key);
  t.equal((before.history as { data: unknown[] }).data.length, count, 'every sample read');

  // The newest samples sealed too: latest and the last reach come from a block.
  runPass(server.services.seal, new Date(now.getTime() + hour));
  t.equal(rowCount(server), 0);
  const allSealed = await reads();
  for (const key of ['latest', 'latestOfEach', 'lastReachedAt', 'history', 'since'] as const) checkClose(t, allSealed[key], before[key], `${key}, all sealed`);
});

t.test('a late sample unseals its hour and is stored once; a duplicate of a sealed sample is refused', async (t) => {
  const server = await startTestServer({ now });
  t.teardown(server.close);
  const { databaseId, ingestOne } = await fleetOfOne(server);
  runPass(server.services.rollups, now);
  runPass(server.services.seal, now);
  const nine = Date.parse('2026-11-22T09:00:00Z');

  const duplicate = ingestOne('dup', from + 100 * 10_000);
  t.equal(duplicate.stored, 0, 'a sample already in a block is a duplicate');
  t.equal(blocks(server).length, 4, 'and its hour stays sealed');

  const late = ingestOne('late', nine + 30 * 60_000 + 5_000);
  t.equal(late.stored, 1, 'the late sample is stored');
  t.same(
    blocks(server).map((block) => block.hour),
    [nine - 2 * hour, nine - hour, nine + hour],
    'its hour is rows again',
  );
  const inNine = () => server.db.prepare('SELECT count(*) FROM samples WHERE ts >= ? AND ts < ?').pluck().get(nine, nine + hour);
  t.equal(inNine(), 361, 'the hour’s samples and the late one');
  t.equal(ingestOne('late-again', nine + 30 * 60_000 + 5_000).stored, 0, 'the late sample again is a duplicate');

  runPass(server.services.rollups, now);
  runPass(server.services.seal, now);
  t.equal(blocks(server).length, 4, 'sealed again once folded');
  const samples = new SamplesRepository(server.db, metricCatalog);
  const hourRead = samples.rawSeries(databaseId, [], nine, nine + hour, 1_000);
  t.equal(hourRead.length, 361, 'every sample of the hour once');
  t.equal(hourRead.filter((row) => row.ts === nine + 30 * 60_000 + 5_000).length, 1);
  const rolled = server.db.prepare("SELECT samples FROM sample_rollups WHERE resolution = '1h' AND bucket = ?").pluck().get(nine);
  t.equal(rolled, 361, 'the rollups counted it');
});

t.test('retention drops the sealed hours that ended by its cutoff; deleting the database drops the rest', async (t) => {
  const server = await startTestServer({ now });
  t.teardown(server.close);
  const { tenant, databaseId } = await fleetOfOne(server);
  runPass(server.services.rollups, now);
  runPass(server.services.seal, now);
  const nine = Date.parse('2026-11-22T09:00:00Z');
  runPass(server.services.retention, new Date(nine + 30 * 60_000 + 7 * 86_400_000));
  t.same(
    blocks(server).map((block) => block.hour),
    [nine, nine + hour],
    'the hours that ended by the cutoff are gone; the one it falls in stays',
  );
  const deleted = await server.request('DELETE', `/v1/databases/${databaseId}`, { key: tenant.key });
  t.equal(deleted.status, 204);
  t.equal(blocks(server).length, 0, 'the database’s sealed hours go with it');
});

t.test('rates over sealed samples weigh as SQL does: no query rate, a zero rate, no latency; and a reach found nowhere', async (t) => {
  const server = await startTestServer({ now });
  t.teardown(server.close);
  const { databaseId } = await fleetOfOne(server);
  server.db.prepare('DELETE FROM samples').run();
  const samples = new SamplesRepository(server.db, metricCatalog);
  const column = (path: string) => metricCatalog.findIndex((metric) => metric.path === path);
  const values = (ts: number, qps: number | null, latency: number | null, source: string | null, reachable = 1) => {
    const row: (string | number | null)[] = [databaseId, ts, reachable, ...metricCatalog.map(() => null), source];
    row[3 + column('throughput.queries_per_second')] = qps;
    row[3 + column('latency.avg_query_time_ms')] = latency;
    row[3 + column('latency.p95_query_time_ms')] = latency;
    return row;
  };
  const seven = Date.parse('2026-11-22T07:00:00Z');
  const rows = [
    values(seven + 10_000, null, 5, 'histogram'),
    values(seven + 20_000, 0, 7, 'histogram'),
    values(seven + 30_000, 4, null, null),
    values(seven + 40_000, 2, 3.5, 'histogram'),
    values(seven + 50_000, 3, 1.25, 'estimate', 0),
  ];
  for (const row of rows) t.ok(samples.insert(row));
  server.db.prepare('UPDATE rollup_watermark SET last_sample_id = (SELECT max(seq) FROM samples_pending)').run();
  const read = () => ({
    rates: samples.rangeRates(databaseId, seven, seven + hour),
    none: samples.lastReachedBefore(databaseId, seven + 10_000),
  });
  const before = read();
  t.ok(samples.sealOldestHour(databaseId, now.getTime()));
  t.equal(rowCount(server), 0);
  checkClose(t, read(), before, 'rates and reaches');
  t.equal(before.rates.latency_source, 'histogram');
  t.equal(before.none, undefined);
});

t.test('a seal that fails ends its pass; the next pass starts over', async (t) => {
  const server = await startTestServer({ now });
  t.teardown(server.close);
  const { databaseId } = await fleetOfOne(server);
  runPass(server.services.rollups, now);
  // A block where rows are: a state no code of this server writes.
  server.db.prepare('INSERT INTO sample_hours (database_id, hour, block) VALUES (?, ?, ?)').run(databaseId, Date.parse('2026-11-22T07:00:00Z'), Buffer.from([1]));
  t.throws(() => server.services.seal.slice(now, 1_000), /UNIQUE/);
  server.db.prepare('DELETE FROM sample_hours').run();
  runPass(server.services.seal, now);
  t.equal(blocks(server).length, 4, 'the next pass seals every closed hour');
});

t.test('a pass seals a bounded number of hours; the next goes on', async (t) => {
  const server = await startTestServer({ now });
  t.teardown(server.close);
  const { databaseId } = await fleetOfOne(server);
  runPass(server.services.rollups, now);
  const job = new SealJob(new SamplesRepository(server.db, metricCatalog), { ids: () => [databaseId] }, (work) => server.db.transaction(work)(), 3);
  runPass(job, now);
  t.equal(blocks(server).length, 3, 'three hours in the first pass');
  runPass(job, now);
  t.equal(blocks(server).length, 4, 'the rest in the next');
});

t.test('a sample stored once every row is sealed is folded all the same', async (t) => {
  const server = await startTestServer({ now });
  t.teardown(server.close);
  const { databaseId } = await fleetOfOne(server);
  const later = new Date(now.getTime() + hour);
  runPass(server.services.rollups, later);
  runPass(server.services.seal, later);
  t.equal(rowCount(server), 0, 'every hour sealed, no row left');

  const ts = later.getTime() - 30 * 60_000;
  const ack = server.services.ingest.ingest({ kind: 'embedded' }, { batch_id: 'after-the-seal', samples: [{ database_id: databaseId, snapshot: snapshotAt(5, ts) }] }, later);
  t.equal(ack.stored, 1);
  runPass(server.services.rollups, later);
  const folded = server.db
    .prepare("SELECT samples FROM sample_rollups WHERE database_id = ? AND resolution = '1m' AND bucket = ?")
    .pluck()
    .get(databaseId, ts);
  t.equal(folded, 1, 'its minute is folded: it arrived after the watermark, whatever rows are left');
  t.equal(server.db.prepare('SELECT count(*) FROM samples_pending').pluck().get(), 0, 'the pass that folds a sample drops it from the queue');
});
