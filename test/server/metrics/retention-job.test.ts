import t from 'tap';
import { runPass } from '../../../server/jobs/background-job.js';
import { defaultRetention } from '../../../server/metrics/retention.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';

const day = 86_400_000;

t.test('retention deletes key ranges in chunks across slices, oldest first, and keeps the rest', async (t) => {
  const now = new Date('2026-11-22T12:00:00Z');
  const server = await startTestServer({ now });
  t.teardown(server.close);
  const tenant = createTenant(server.services, now);
  const ids: string[] = [];
  for (const name of ['a', 'b']) {
    const created = await server.request('POST', '/v1/databases', {
      key: tenant.key,
      body: { name, type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' } },
    });
    ids.push(created.body.id);
  }
  const rawCutoff = now.getTime() - defaultRetention.raw;
  const minuteCutoff = now.getTime() - defaultRetention['1m'];
  const insertSample = server.db.prepare('INSERT INTO samples (database_id, ts, reachable) VALUES (?, ?, 1)');
  const insertRollup = server.db.prepare("INSERT INTO sample_rollups (database_id, resolution, bucket, samples) VALUES (?, '1m', ?, 1)");
  const insertBatch = server.db.prepare("INSERT INTO ingested_batches (source, batch_id, received_at) VALUES ('embedded', ?, ?)");
  server.db.transaction(() => {
    for (const id of ids) {
      // 1,300 expired samples and 20 kept ones, 10 s apart around the cutoff; the same shape for 1 m buckets.
      for (let i = -1300; i < 20; i++) insertSample.run(id, rawCutoff + i * 10_000);
      for (let i = -700; i < 10; i++) insertRollup.run(id, minuteCutoff + i * 60_000);
    }
    for (let i = -1200; i < 5; i++) insertBatch.run(`batch-${i}`, rawCutoff + i * 1000);
  })();
  server.db.prepare('UPDATE rollup_watermark SET last_sample_id = (SELECT max(seq) FROM samples_pending)').run();

  let slices = 1;
  while (server.services.retention.slice(now, 0)) slices++;
  t.ok(slices > 6, `chunks of at most 500 rows, one per slice without budget (${slices} slices)`);
  const count = (sql: string, ...args: unknown[]) => server.db.prepare(sql).pluck().get(...args) as number;
  for (const id of ids) {
    t.equal(count('SELECT count(*) FROM samples WHERE database_id = ?', id), 20, 'the samples within retention are kept');
    t.equal(count('SELECT min(ts) FROM samples WHERE database_id = ?', id), rawCutoff, 'up to the cutoff');
    t.equal(count("SELECT count(*) FROM sample_rollups WHERE database_id = ? AND resolution = '1m'", id), 10, '1 m buckets by their own retention');
  }
  t.equal(count('SELECT count(*) FROM ingested_batches'), 5, 'batch ids as long as raw samples');

  runPass(server.services.retention, new Date(now.getTime() + day));
  t.equal(count('SELECT count(*) FROM samples'), 0, 'a day later the rest is gone too');
});
