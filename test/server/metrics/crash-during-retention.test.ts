import t from 'tap';
import { openStateDir } from '../../../server/state-dir.js';
import type { Db } from '../../../server/storage/open-database.js';
import { day, killOnProgress, passEnded, preparedState, storeSamples } from '../../helpers/crash-state.js';
import { spawnServer } from '../../helpers/spawn-server.js';

// The built server killed with SIGKILL in the middle of retention passes.

t.test('SIGKILL during retention passes: what is kept is there once, what expired goes', async (t) => {
  const { stateDir, db, databaseIds } = preparedState(t, 20);
  const keptFrom = Date.now() - day;
  const expired = (state: Db) => state.prepare('SELECT count(*) FROM samples WHERE ts < ?').pluck().get(keptFrom) as number;
  storeSamples(db, databaseIds, Date.now() - 9 * day, 6_000);
  storeSamples(db, databaseIds, keptFrom, 600);
  db.prepare('UPDATE rollup_watermark SET last_sample_id = (SELECT max(id) FROM samples)').run();
  let left = expired(db);
  db.close();
  // Two passes killed in the middle of their deletes, each as soon as it has deleted something.
  for (const pass of [1, 2]) {
    const server = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
    const before = left;
    await killOnProgress(server, stateDir, `deletes of pass ${pass}`, (state) => (left = expired(state)) < before);
  }
  const { db: between } = openStateDir(stateDir, undefined);
  t.ok(expired(between) > 0, 'the killed passes left expired samples behind');
  between.close();
  const server = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
  await passEnded(server, 'retention');
  t.equal((await server.stop()).code, 0);
  const { db: after } = openStateDir(stateDir, undefined);
  t.teardown(() => after.close());
  t.equal(expired(after), 0, 'every expired sample is gone');
  t.equal(after.prepare('SELECT count(*) FROM samples').pluck().get(), 600 * databaseIds.length, 'every kept sample is there, once');
});
