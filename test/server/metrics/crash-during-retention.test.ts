import t from 'tap';
import { openStateDir } from '../../../server/state-dir.js';
import type { Db } from '../../../server/storage/open-database.js';
import { fillEverySample } from '../../helpers/every-sample.js';
import { day, killOnProgress, passEnded, preparedState, storeSamples } from '../../helpers/crash-state.js';
import { spawnServer } from '../../helpers/spawn-server.js';

// The built server killed with SIGKILL in the middle of retention passes.

t.test('SIGKILL in the middle of a retention pass: what is kept is there once, what expired goes', async (t) => {
  const { stateDir, db, databaseIds } = preparedState(t, 20);
  const keptFrom = Date.now() - day;
  const expiredPerDatabase = 12_000;
  // Rows, and sealed hours (the seal job runs too) as the rows they were.
  const expired = (state: Db) =>
    state.prepare('SELECT (SELECT count(*) FROM samples WHERE ts < @keptFrom) + 360 * (SELECT count(*) FROM sample_hours WHERE hour <= @keptFrom - 3600000)').pluck().get({ keptFrom }) as number;
  const expiredFrom = Date.now() - 9 * day;
  storeSamples(db, databaseIds, expiredFrom, expiredPerDatabase);
  storeSamples(db, databaseIds, keptFrom, 600);
  db.prepare('UPDATE rollup_watermark SET last_sample_id = (SELECT max(seq) FROM samples_pending)').run();
  db.close();
  // The seal pass before retention seals at most 500 hours, here the first databases' 36 each: the
  // last ones keep their expired rows, which retention deletes 500 a step, in many slices. Only
  // retention deletes rows of a database without a sealed hour, and oldest first: expired rows of
  // such a database partly gone is a retention pass begun, some left is one not ended. Counted per
  // database by its index: the reader looks every few milliseconds while the server works.
  const unsealedExpiredRows = (state: Db) => {
    const hours = state.prepare('SELECT count(*) FROM sample_hours WHERE database_id = ?').pluck();
    const rows = state.prepare('SELECT count(*) AS left, min(ts) AS oldest, max(ts) AS newest FROM samples WHERE database_id = ? AND ts < ?');
    // One read transaction: a seal committed between the two reads would look like rows deleted.
    return state.transaction(() =>
      databaseIds.filter((id) => hours.get(id) === 0).map((id) => rows.get(id, keptFrom) as { left: number; oldest: number | null; newest: number | null }),
    )();
  };
  const begun = (state: Db) => unsealedExpiredRows(state).some(({ left }) => left < expiredPerDatabase);
  const killed = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
  await killOnProgress(killed, stateDir, 'a retention pass deleting expired rows', begun);
  const { db: between } = openStateDir(stateDir, undefined);
  const unsealed = unsealedExpiredRows(between);
  between.close();
  const lefts = unsealed.map(({ left }) => left);
  t.ok(lefts.some((left) => left < expiredPerDatabase) && lefts.some((left) => left > 0), `the pass was cut while deleting rows: ${JSON.stringify(lefts)} left`);
  t.ok(
    unsealed.every(({ left, oldest, newest }) => left === 0 || (newest === expiredFrom + (expiredPerDatabase - 1) * 10_000 && (newest - oldest!) / 10_000 + 1 === left)),
    "what the cut pass left of each database is whole: none, or its newest expired rows without a gap",
  );
  const server = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
  await passEnded(server, 'retention');
  t.equal((await server.stop()).code, 0);
  const { db: after } = openStateDir(stateDir, undefined);
  t.teardown(() => after.close());
  t.equal(expired(after), 0, 'every expired sample is gone');
  fillEverySample(after);
  t.equal(after.prepare('SELECT count(*) FROM every_sample').pluck().get(), 600 * databaseIds.length, 'every kept sample is there, once');
});
