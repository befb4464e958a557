import Database from 'better-sqlite3';
import t from 'tap';
import { runPass } from '../../../server/jobs/background-job.js';
import { databaseWithSamples } from '../../helpers/database-with-samples.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

const hour = 3_600_000;
const now = new Date('2026-11-22T12:00:00Z');
/** Hours 08 to 10 closed (sealed), 11 open. */
const from = now.getTime() - 4 * hour;

async function sealedDatabase(server: TestServer) {
  const stored = await databaseWithSamples(server, now, from, 4 * 360, (i) => (i % 50) * 0.5);
  runPass(server.services.rollups, now);
  runPass(server.services.rollupSeal, now);
  const history = async () => {
    const query = `resolution=1m&metrics=cpu_usage&from=${new Date(from).toISOString()}&to=${now.toISOString()}`;
    const response = await server.request('GET', `/v1/databases/${stored.databaseId}/metrics/history?${query}`, { key: stored.tenant.key });
    t.equal(response.status, 200);
    return response.text;
  };
  return { ...stored, history };
}

const blockCount = (server: TestServer) => server.db.prepare("SELECT count(*) FROM rollup_blocks WHERE resolution = '1m'").pluck().get() as number;

t.test('a span sealed again after a late sample reads with that sample, not as it was decoded before', async (t) => {
  const server = await startTestServer({ now });
  t.teardown(server.close);
  const { ingest, history } = await sealedDatabase(server);
  t.equal(blockCount(server), 3, 'hours 08 to 10 sealed');
  const before = await history();
  t.equal(await history(), before, 'read twice, the same');

  // A late sample 5 s after the first of 09:00 (i = 360): the 09 span goes back to rows, is folded and sealed again.
  ingest(360, 1, 'late', 5_000);
  runPass(server.services.rollups, now);
  t.equal(blockCount(server), 2, 'the late sample unsealed its span');
  runPass(server.services.rollupSeal, now);
  t.equal(blockCount(server), 3, 'and the seal job sealed it again');
  const after = await history();
  t.not(after, before, 'the late sample is in the answer');
  const point = JSON.parse(after).data.find((p: { timestamp: string }) => p.timestamp === '2026-11-22T09:00:00.000Z');
  // i = 360 … 365 have cpu 5 … 7.5 by 0.5, 364 unreachable (6.1 on average); the late one has 5.
  t.same(point.metrics.cpu_usage, { avg: 35.5 / 6, min: 5, max: 7.5 }, "09:00 holds its samples and the late one");
});

t.test('a block another connection replaced reads as replaced', async (t) => {
  const server = await startTestServer({ now });
  t.teardown(server.close);
  const { history } = await sealedDatabase(server);
  const before = await history();
  t.equal(await history(), before, 'read twice: its spans kept');
  const other = new Database(server.db.name);
  t.teardown(() => other.close());
  // The 09 span's block replaced by the 10 span's: its buckets move an hour back.
  other
    .prepare(
      `UPDATE rollup_blocks SET block = (SELECT block FROM rollup_blocks WHERE resolution = '1m' AND span_start = ?)
       WHERE resolution = '1m' AND span_start = ?`,
    )
    .run(from + 2 * hour, from + hour);
  const after = JSON.parse(await history()).data as { timestamp: string; metrics: { cpu_usage: unknown } }[];
  const at = (points: typeof after, iso: string) => points.find((point) => point.timestamp === iso)!.metrics.cpu_usage;
  const old = JSON.parse(before).data as typeof after;
  t.same(at(after, '2026-11-22T09:07:00.000Z'), at(old, '2026-11-22T10:07:00.000Z'), "09:07 reads as 10:07 did");
  t.notSame(at(old, '2026-11-22T09:07:00.000Z'), at(old, '2026-11-22T10:07:00.000Z'), 'which differed before');
});
