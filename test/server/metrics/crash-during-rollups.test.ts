import t, { type Test } from 'tap';
import { metricCatalog } from '../../../common/metric-catalog.js';
import { decodeRollupBlock } from '../../../server/metrics/blocks/rollup-block.js';
import { openStateDir } from '../../../server/state-dir.js';
import type { Db } from '../../../server/storage/open-database.js';
import { fillEverySample } from '../../helpers/every-sample.js';
import { day, killOnProgress, passEnded, preparedState, storeSamples } from '../../helpers/crash-state.js';
import { spawnServer } from '../../helpers/spawn-server.js';

// The built server killed with SIGKILL in the middle of rollup passes: the next pass folds every sample exactly once.

/** Every sample once (the unique key holds that), and each 1 m and 1 d bucket, as a row or in a sealed block, counting exactly its samples. */
function checkRollups(t: Test, db: Db): void {
  fillEverySample(db);
  const stored = new Map<string, { samples: number; values: number }>();
  const key = (databaseId: string, resolution: string, bucket: number) => `${databaseId} ${resolution} ${bucket}`;
  for (const row of db.prepare("SELECT database_id, resolution, bucket, samples, cpu_usage_count FROM sample_rollups WHERE resolution IN ('1m', '1d')").all() as {
    database_id: string;
    resolution: string;
    bucket: number;
    samples: number;
    cpu_usage_count: number;
  }[]) {
    stored.set(key(row.database_id, row.resolution, row.bucket), { samples: row.samples, values: row.cpu_usage_count });
  }
  const cpu = metricCatalog.filter((metric) => metric.path === 'cpu_usage');
  for (const { database_id, span_start, block } of db.prepare("SELECT database_id, span_start, block FROM rollup_blocks WHERE resolution = '1m'").all() as {
    database_id: string;
    span_start: number;
    block: Uint8Array;
  }[]) {
    for (const bucket of decodeRollupBlock(block, { start: span_start, width: 60_000 }, cpu, true)) {
      stored.set(key(database_id, '1m', bucket.ts!), { samples: bucket.samples!, values: bucket.cpu_usage_count! });
    }
  }
  const wrong = (resolution: string, width: number) =>
    (
      db.prepare(`SELECT database_id, (ts / ${width}) * ${width} AS bucket, count(*) AS n, count(cpu_usage) AS values_ FROM every_sample GROUP BY 1, 2`).all() as {
        database_id: string;
        bucket: number;
        n: number;
        values_: number;
      }[]
    ).filter(({ database_id, bucket, n, values_ }) => {
      const found = stored.get(key(database_id, resolution, bucket));
      return found?.samples !== n || found.values !== values_;
    }).length;
  t.equal(wrong('1m', 60_000), 0, 'every 1 m bucket counts its samples once');
  t.equal(wrong('1d', day), 0, 'every 1 d bucket counts its samples once');
}

t.test('SIGKILL during rollup passes: the next pass folds every sample exactly once', async (t) => {
  const { stateDir, db, databaseIds } = preparedState(t, 20);
  const fromMs = Math.floor((Date.now() - 1.5 * day) / day) * day;
  storeSamples(db, databaseIds, fromMs, 8_640);
  const total = db.prepare('SELECT count(*) FROM samples').pluck().get() as number;
  db.close();
  // Killed as soon as the first folds are committed: the watermark moves only at the end of a pass.
  const killed = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
  await killOnProgress(killed, stateDir, 'the first folds', (state) => state.prepare('SELECT EXISTS (SELECT 1 FROM sample_rollups)').pluck().get() === 1);
  const { db: between } = openStateDir(stateDir, undefined);
  const watermark = between.prepare('SELECT last_sample_id FROM rollup_watermark').pluck().get() as number;
  const buckets = between.prepare('SELECT count(*) FROM sample_rollups').pluck().get() as number;
  between.close();
  t.ok(watermark < total && buckets > 0, `a kill landed after some folds and before the pass ended (watermark ${watermark}, ${buckets} buckets)`);
  const server = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
  await passEnded(server, 'rollups');
  t.equal((await server.stop()).code, 0);
  const { db: after } = openStateDir(stateDir, undefined);
  t.teardown(() => after.close());
  checkRollups(t, after);
  t.equal(after.prepare('SELECT count(*) FROM every_sample').pluck().get(), total, 'no sample lost');
});

