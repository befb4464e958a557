import t from 'tap';
import { openStateDir } from '../../../server/state-dir.js';
import { fillEverySample } from '../../helpers/every-sample.js';
import { day, killOnProgress, passEnded, preparedState, storeSamples } from '../../helpers/crash-state.js';
import { spawnServer } from '../../helpers/spawn-server.js';

// The built server killed with SIGKILL in the middle of a seal pass: every sample is there once after the next.

t.test('SIGKILL during a seal pass: every acknowledged sample is there exactly once, with its values', async (t) => {
  const { stateDir, db, databaseIds } = preparedState(t, 20);
  const fromMs = Math.floor((Date.now() - 1.5 * day) / day) * day;
  storeSamples(db, databaseIds, fromMs, 4_320);
  db.prepare('UPDATE rollup_watermark SET last_sample_id = (SELECT max(seq) FROM samples_pending)').run();
  const stored = db.prepare('SELECT database_id, ts, cpu_usage, connections_active FROM samples ORDER BY database_id, ts').all();
  db.close();
  const killed = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
  await killOnProgress(killed, stateDir, 'the first seals', (state) => (state.prepare('SELECT count(*) FROM sample_hours').pluck().get() as number) >= 20);
  const { db: between } = openStateDir(stateDir, undefined);
  const rows = between.prepare('SELECT count(*) FROM samples').pluck().get() as number;
  const hours = between.prepare('SELECT count(*) FROM sample_hours').pluck().get() as number;
  between.close();
  t.ok(rows > 0 && hours > 0 && hours < 20 * 12, `killed in the middle of the pass (${hours} hours sealed, ${rows} rows left)`);
  const server = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
  await passEnded(server, 'seal');
  t.equal((await server.stop()).code, 0);
  const { db: after } = openStateDir(stateDir, undefined);
  t.teardown(() => after.close());
  t.equal(after.prepare('SELECT count(*) FROM samples').pluck().get(), 0, 'every closed hour sealed');
  fillEverySample(after);
  t.same(after.prepare('SELECT database_id, ts, cpu_usage, connections_active FROM every_sample ORDER BY database_id, ts').all(), stored, 'every sample once, its values as stored');
});
