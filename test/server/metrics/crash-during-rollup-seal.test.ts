import t from 'tap';
import { metricCatalog } from '../../../common/metric-catalog.js';
import { decodeRollupBlock } from '../../../server/metrics/blocks/rollup-block.js';
import { sealedResolutions } from '../../../server/metrics/rollup-blocks.js';
import { openStateDir } from '../../../server/state-dir.js';
import { fillEverySample } from '../../helpers/every-sample.js';
import { day, killOnProgress, passEnded, preparedState, storeSamples } from '../../helpers/crash-state.js';
import { spawnServer } from '../../helpers/spawn-server.js';

// The built server killed with SIGKILL in the middle of a seal pass: every span is rows or one
// block, never both, and every sample is counted once at 1m and 5m afterwards.

t.test('SIGKILL during a seal pass: each span rows or a block, every sample counted once', async (t) => {
  const { stateDir, db, databaseIds } = preparedState(t, 20);
  const fromMs = Math.floor((Date.now() - 1.5 * day) / day) * day;
  storeSamples(db, databaseIds, fromMs, 8_640);
  const total = db.prepare('SELECT count(*) FROM samples').pluck().get() as number;
  db.close();
  const spans = 'SELECT count(*) FROM rollup_blocks';
  const killed = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
  await killOnProgress(killed, stateDir, 'the first seals', (state) => (state.prepare(spans).pluck().get() as number) > 0);
  const { db: between } = openStateDir(stateDir, undefined);
  const sealedBefore = between.prepare(spans).pluck().get() as number;
  between.close();

  const server = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
  await passEnded(server, 'rollup_seal');
  t.equal((await server.stop()).code, 0);
  const { db: after } = openStateDir(stateDir, undefined);
  t.teardown(() => after.close());
  const sealedAfter = after.prepare(spans).pluck().get() as number;
  t.ok(sealedBefore < sealedAfter, `the kill landed in the middle of sealing (${sealedBefore} spans sealed, then ${sealedAfter})`);
  fillEverySample(after);
  t.equal(after.prepare('SELECT count(*) FROM every_sample').pluck().get(), total, 'no sample lost (rows and sealed hours)');
  const metrics = metricCatalog.filter((metric) => metric.path === 'cpu_usage');
  for (const resolution of sealedResolutions) {
    const both = after
      .prepare(
        `SELECT count(*) FROM rollup_blocks b WHERE b.resolution = ? AND EXISTS (SELECT 1 FROM sample_rollups r
           WHERE r.database_id = b.database_id AND r.resolution = b.resolution AND r.bucket >= b.span_start AND r.bucket < b.span_start + ?)`,
      )
      .pluck()
      .get(resolution.name, resolution.spanMs);
    t.equal(both, 0, `${resolution.name}: no span both rows and a block`);
    const counted = { samples: 0, values: 0 };
    for (const row of after.prepare("SELECT samples, cpu_usage_count FROM sample_rollups WHERE resolution = ?").all(resolution.name) as { samples: number; cpu_usage_count: number }[]) {
      counted.samples += row.samples;
      counted.values += row.cpu_usage_count;
    }
    for (const { span_start, block } of after.prepare('SELECT span_start, block FROM rollup_blocks WHERE resolution = ?').all(resolution.name) as { span_start: number; block: Uint8Array }[]) {
      for (const bucket of decodeRollupBlock(block, { start: span_start, width: resolution.ms }, metrics, true)) {
        counted.samples += bucket.samples!;
        counted.values += bucket.cpu_usage_count!;
      }
    }
    t.same(counted, { samples: total, values: total }, `${resolution.name}: every sample counted once`);
  }
});
