import t from 'tap';
import { openStateDir } from '../../../server/state-dir.js';
import type { Db } from '../../../server/storage/open-database.js';
import { fillEverySample } from '../../helpers/every-sample.js';
import { day, killOnProgress, passEnded, preparedState, storeSamples } from '../../helpers/crash-state.js';
import { spawnServer } from '../../helpers/spawn-server.js';

// The built server killed with SIGKILL in the middle of retention passes.

t.test('SIGKILL during seal passes before retention: what is kept is there once, what expired goes', async (t) => {
  const { stateDir, db, databaseIds } = preparedState(t, 20);
  const keptFrom = Date.now() - day;
  // Rows, and sealed hours (the seal job runs too) as the rows they were.
  const expired = (state: Db) =>
    state.prepare('SELECT (SELECT count(*) FROM samples WHERE ts < @keptFrom) + 360 * (SELECT count(*) FROM sample_hours WHERE hour <= @keptFrom - 3600000)').pluck().get({ keptFrom }) as number;
  storeSamples(db, databaseIds, Date.now() - 9 * day, 6_000);
  storeSamples(db, databaseIds, keptFrom, 600);
  db.prepare('UPDATE rollup_watermark SET last_sample_id = (SELECT max(seq) FROM samples_pending)').run();
  db.close();
  // The seal job runs before retention and turns the rows into blocks, which a retention slice drops
  // many at a time: killed in the middle of the seal pass, while part of what expires is rows, part blocks.
  const sealed = (state: Db) => state.prepare('SELECT count(*) FROM sample_hours').pluck().get() as number;
  const killed = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
  await killOnProgress(killed, stateDir, 'the first seals', (state) => sealed(state) > 0);
  const { db: between } = openStateDir(stateDir, undefined);
  const rowsLeft = between.prepare('SELECT count(*) FROM samples WHERE ts < ?').pluck().get(keptFrom) as number;
  t.ok(rowsLeft > 0 && sealed(between) > 0, `the killed pass left expired rows and blocks behind (${rowsLeft} rows, ${sealed(between)} hours)`);
  between.close();
  const server = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
  await passEnded(server, 'retention');
  t.equal((await server.stop()).code, 0);
  const { db: after } = openStateDir(stateDir, undefined);
  t.teardown(() => after.close());
  t.equal(expired(after), 0, 'every expired sample is gone');
  fillEverySample(after);
  t.equal(after.prepare('SELECT count(*) FROM every_sample').pluck().get(), 600 * databaseIds.length, 'every kept sample is there, once');
});
