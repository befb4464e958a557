import t, { type Test } from 'tap';
import { runPass } from '../../../server/jobs/background-job.js';
import { databaseWithSamples as storedSamples } from '../../helpers/database-with-samples.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;
const now = new Date('2026-11-22T12:00:00Z');
const from = now.getTime() - 30 * hour;
/** An hour of the first (sealable) day that late samples land in. */
const lateHour = from + 2 * hour;
const resolutions = ['1m', '5m', '1h', '1d', 'auto'];
const steps: Record<string, number> = { cpu_usage: 0.001, 'connections.active': 1 };

type Point = { timestamp: string; metrics: Record<string, { avg: number | null; min: number | null; max: number | null }> };

/** A database with samples every 10 s from `from` to 10 minutes before `now`: cpu not at its step, connections.active = i % 7, one in five unreachable. */
async function databaseWithSamples(server: TestServer) {
  const { tenant, databaseId, ingest } = await storedSamples(server, now, from, 30 * 360 - 60, (i) => (i % 1000) / 7);
  const history = async (resolution: string): Promise<Point[]> => {
    const query = `metrics=cpu_usage,connections.active&from=${new Date(from).toISOString()}&to=${now.toISOString()}&resolution=${resolution}`;
    const response = await server.request('GET', `/v1/databases/${databaseId}/metrics/history?${query}`, { key: tenant.key });
    if (response.status !== 200) throw new Error(`history at ${resolution}: ${response.status} ${response.text}`);
    return response.body.data;
  };
  return { tenant, databaseId, ingest, histories: () => Promise.all(resolutions.map(history)) };
}

/** The same points, each figure within half its metric's step. */
function sameWithinSteps(t: Test, got: Point[][], expected: Point[][], message: string): void {
  let worst = 0;
  let mismatches = 0;
  for (const [r, points] of expected.entries()) {
    if (got[r]!.length !== points.length) mismatches++;
    for (const [p, point] of points.entries()) {
      const other = got[r]![p];
      if (other?.timestamp !== point.timestamp) {
        mismatches++;
        continue;
      }
      for (const [metric, stats] of Object.entries(point.metrics)) {
        for (const stat of ['avg', 'min', 'max'] as const) {
          const a = stats[stat];
          const b = other.metrics[metric]![stat];
          if (a === null || b === null) {
            if (a !== b) mismatches++;
            continue;
          }
          const off = Math.abs(a - b) / steps[metric]!;
          worst = Math.max(worst, off);
          if (off > 0.5 + 1e-9) mismatches++;
        }
      }
    }
  }
  t.equal(mismatches, 0, `${message} (worst difference ${worst.toFixed(3)} step)`);
}

const spans = (server: TestServer) =>
  Object.fromEntries(
    (server.db.prepare('SELECT resolution, count(*) AS n FROM rollup_blocks GROUP BY resolution').all() as { resolution: string; n: number }[]).map((row) => [row.resolution, row.n]),
  );

t.test('the seal job seals closed spans without pending samples, in slices, once; history reads the same', async (t) => {
  const server = await startTestServer({ now });
  t.teardown(server.close);
  const { tenant, databaseId, ingest, histories } = await databaseWithSamples(server);
  runPass(server.services.rollups, now);
  const before = await histories();

  let slices = 1;
  while (server.services.rollupSeal.slice(now, 0)) slices++;
  t.ok(slices > 30, `a pass with no budget seals one span a slice (${slices} slices)`);
  // 06:00 the day before to 11:00 closed; 11:00-12:00 is not (it ends after now less the grace), nor is today.
  t.same(spans(server), { '1m': 29, '5m': 1 }, 'every closed hour at 1m, the closed day at 5m');
  t.equal(
    server.db.prepare("SELECT count(*) FROM sample_rollups WHERE resolution = '1m' AND bucket < ?").pluck().get(now.getTime() - hour),
    0,
    'no row left in a sealed span',
  );
  sameWithinSteps(t, await histories(), before, 'history at 1m, 5m, 1h, 1d and auto as before sealing');

  const changes = () => server.db.prepare('SELECT total_changes()').pluck().get() as number;
  const unchanged = changes();
  runPass(server.services.rollupSeal, now);
  t.equal(changes(), unchanged, 'a second pass changes nothing');

  // Late samples into the sealed hour: folded (the span goes back to rows), then more, not folded yet.
  ingest(2 * 360, 60, 'late-1', 5_000);
  const merged = await histories();
  runPass(server.services.rollups, now);
  t.same(spans(server), { '1m': 28 }, 'the fold unsealed the late hour at 1m and its day at 5m');
  sameWithinSteps(t, await histories(), merged, 'the fold gives what the merged read gave');
  ingest(2 * 360 + 60, 60, 'late-2', 5_000);
  runPass(server.services.rollupSeal, now);
  t.same(spans(server), { '1m': 28 }, 'spans with samples not folded yet stay rows');
  runPass(server.services.rollups, now);
  runPass(server.services.rollupSeal, now);
  t.same(spans(server), { '1m': 29, '5m': 1 }, 'sealed again once folded');
  t.equal(server.db.prepare('SELECT count(*) FROM rollup_blocks WHERE span_start = ?').pluck().get(lateHour), 1, 'the late hour among them');

  // The same samples arriving in time, never sealed.
  const inTime = await startTestServer({ now });
  t.teardown(inTime.close);
  const other = await databaseWithSamples(inTime);
  other.ingest(2 * 360, 120, 'late', 5_000);
  runPass(inTime.services.rollups, now);
  sameWithinSteps(t, await histories(), await other.histories(), 'late samples into a sealed span give the buckets they would have in time');

  // Retention drops sealed spans that end by the cutoff: 1m kept 30 days, 5m 90.
  runPass(server.services.retention, new Date(now.getTime() + 31 * day));
  t.same(spans(server), { '5m': 1 }, 'the 1m spans past retention dropped, the 5m span kept');
  t.equal(server.db.prepare("SELECT count(*) FROM sample_rollups WHERE resolution = '1m'").pluck().get(), 0);

  t.equal((await server.request('DELETE', `/v1/databases/${databaseId}`, { key: tenant.key })).status, 204);
  t.same(spans(server), {}, 'deleting the database deletes its blocks');
});

t.test('a span holding a value too large for a block keeps its rows', async (t) => {
  const server = await startTestServer({ now });
  t.teardown(server.close);
  await databaseWithSamples(server);
  runPass(server.services.rollups, now);
  server.db.prepare("UPDATE sample_rollups SET cpu_usage_max = 1e300 WHERE resolution = '1m' AND bucket = ?").run(lateHour);
  runPass(server.services.rollupSeal, now);
  t.same(spans(server), { '1m': 28, '5m': 1 }, 'the other hours sealed, and the day at 5m');
  t.equal(server.db.prepare("SELECT count(*) FROM sample_rollups WHERE resolution = '1m' AND bucket >= ? AND bucket < ?").pluck().get(lateHour, lateHour + hour), 60);
});

t.test('a slice that fails seals nothing of its spans, and the next pass starts over', async (t) => {
  const server = await startTestServer({ now });
  t.teardown(server.close);
  await databaseWithSamples(server);
  runPass(server.services.rollups, now);
  server.db.exec("CREATE TRIGGER refuse_blocks BEFORE INSERT ON rollup_blocks WHEN (SELECT count(*) FROM rollup_blocks) >= 3 BEGIN SELECT RAISE(ABORT, 'refused'); END");
  t.throws(() => runPass(server.services.rollupSeal, now), /refused/);
  t.same(spans(server), {}, 'the slice rolled back whole');
  server.db.exec('DROP TRIGGER refuse_blocks');
  runPass(server.services.rollupSeal, now);
  t.same(spans(server), { '1m': 29, '5m': 1 }, 'the next pass seals every closed span');
});
