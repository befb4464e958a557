import t from 'tap';
import { metricCatalog } from '../../../common/metric-catalog.js';
import { runPass } from '../../../server/jobs/background-job.js';
import { databaseWithSamples as storedSamples } from '../../helpers/database-with-samples.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

const minute = 60_000;
const hour = 60 * minute;
const now = new Date('2026-11-22T12:00:00Z');

/** A database with `count` samples every 10 s from `from`: cpu = i, connections.active = i % 7, one in five unreachable. */
const databaseWithSamples = (server: TestServer, from: number, count: number) => storedSamples(server, now, from, count);

t.test('history reads the same before and after a fold, never writes, and folds coarse buckets from fine ones', async (t) => {
  const server = await startTestServer({ now });
  t.teardown(server.close);
  const from = now.getTime() - 6 * hour;
  const { tenant, databaseId, ingest } = await databaseWithSamples(server, from, 6 * 360 - 30);
  const history = async (resolution: string) => {
    const query = `metrics=cpu_usage,connections.active&from=${new Date(from).toISOString()}&to=${now.toISOString()}&resolution=${resolution}`;
    const response = await server.request('GET', `/v1/databases/${databaseId}/metrics/history?${query}`, { key: tenant.key });
    t.equal(response.status, 200, `history at ${resolution}`);
    return response.body.data as { timestamp: string; metrics: Record<string, { avg: number | null; min: number | null; max: number | null }> }[];
  };
  const resolutions = ['1m', '5m', '1h', '1d'];
  const changes = () => server.db.prepare('SELECT total_changes()').pluck().get() as number;

  const changesBefore = changes();
  const unfolded = await Promise.all(resolutions.map(history));
  t.equal(changes(), changesBefore, 'reading history writes nothing');
  t.equal(server.db.prepare('SELECT count(*) FROM sample_rollups').pluck().get(), 0, 'no fold on the read path');
  // The exact figures from the raw samples: the first 5-minute bucket holds i = 0..29, six of them unreachable.
  const reachable = Array.from({ length: 30 }, (_, i) => i).filter((i) => i % 5 !== 4);
  t.same(unfolded[1]![0]!.metrics.cpu_usage, { avg: reachable.reduce((a, b) => a + b, 0) / reachable.length, min: 0, max: 28 });

  let slices = 1;
  while (server.services.rollups.slice(now, 0)) slices++;
  t.ok(slices > 1, `a pass with no budget still moves on, one unit per slice (${slices} slices)`);
  t.same(await Promise.all(resolutions.map(history)), unfolded, 'folded buckets read as the raw samples did');

  // Samples that are late for buckets already folded, and new ones: merged with the folded part until the next fold.
  ingest(1000, 360, `${databaseId}-late`, -1000 * 10_000 + 5_000);
  ingest(6 * 360 - 30, 30, `${databaseId}-new`);
  const merged = await Promise.all(resolutions.map(history));
  t.not(merged[0]![0]!.metrics.cpu_usage!.avg, unfolded[0]![0]!.metrics.cpu_usage!.avg, 'a late sample changes its bucket at once');
  runPass(server.services.rollups, now);
  const refolded = await Promise.all(resolutions.map(history));
  t.same(refolded, merged, 'the fold gives what the merged read gave');

  // Each resolution against the raw samples, computed here.
  const raw = server.db
    .prepare('SELECT ts, cpu_usage FROM samples WHERE database_id = ? AND cpu_usage IS NOT NULL')
    .all(databaseId) as { ts: number; cpu_usage: number }[];
  for (const [index, width] of [minute, 5 * minute, hour, 24 * hour].entries()) {
    const buckets = new Map<number, number[]>();
    for (const { ts, cpu_usage } of raw) buckets.set(Math.floor(ts / width) * width, [...(buckets.get(Math.floor(ts / width) * width) ?? []), cpu_usage]);
    const expected = [...buckets.entries()]
      .sort(([a], [b]) => a - b)
      .map(([start, values]) => ({
        timestamp: new Date(start).toISOString(),
        avg: values.reduce((a, b) => a + b, 0) / values.length,
        min: Math.min(...values),
        max: Math.max(...values),
      }));
    const got = refolded[index]!.map((point) => ({ timestamp: point.timestamp, ...point.metrics.cpu_usage! }));
    t.equal(got.length, expected.length, `${resolutions[index]}: every bucket`);
    const worst = Math.max(...got.map((point, i) => Math.abs(point.avg! - expected[i]!.avg)));
    t.ok(worst < 1e-9, `${resolutions[index]}: count-weighted means equal the raw means (off by ${worst})`);
    t.same(got.map(({ timestamp, min, max }) => ({ timestamp, min, max })), expected.map(({ timestamp, min, max }) => ({ timestamp, min, max })));
  }
  const counts = server.db
    .prepare("SELECT sum(samples) AS samples, sum(cpu_usage_count) AS values_ FROM sample_rollups WHERE database_id = ? AND resolution = '1d'")
    .get(databaseId) as { samples: number; values_: number };
  t.same(counts, { samples: server.db.prepare('SELECT count(*) FROM samples').pluck().get(), values_: raw.length }, 'every sample counted once');
});

t.test('buckets folded before value counts were kept weigh by their sample count', async (t) => {
  const server = await startTestServer({ now });
  t.teardown(server.close);
  const from = now.getTime() - hour;
  const { tenant, databaseId, ingest } = await databaseWithSamples(server, from, 12);
  runPass(server.services.rollups, now);
  // As migration 0009 leaves a bucket folded before it: no value counts.
  server.db.exec(`UPDATE sample_rollups SET ${metricCatalog.map((metric) => `${metric.column}_count = NULL`).join(', ')}`);
  ingest(12, 3, `${databaseId}-after`);
  const query = `metrics=connections.active&from=${new Date(from).toISOString()}&to=${now.toISOString()}&resolution=5m`;
  const read = async () => (await server.request('GET', `/v1/databases/${databaseId}/metrics/history?${query}`, { key: tenant.key })).body.data[0].metrics['connections.active'];
  // i = 0..14, unreachable at 4, 9 and 14: the folded part (i < 12, 10 values, 12 samples) weighs 12.
  const folded = [0, 1, 2, 3, 5, 6, 7, 8, 10, 11].map((i) => i % 7);
  const foldedAvg = folded.reduce((a, b) => a + b, 0) / folded.length;
  const expected = { avg: (foldedAvg * 12 + (12 % 7) + (13 % 7)) / 14, min: 0, max: 6 };
  t.same(await read(), expected, 'merged with newer samples');
  runPass(server.services.rollups, now);
  t.same(await read(), expected, 'and folded the same way');
});
