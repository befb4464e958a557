import t from 'tap';
import { composeServices } from '../../../server/compose-services.js';
import { openStateDir } from '../../../server/state-dir.js';
import { killOnProgress, passEnded, preparedState } from '../../helpers/crash-state.js';
import { spawnServer } from '../../helpers/spawn-server.js';

// The built server killed with SIGKILL in the middle of statement fold passes: every statement
// interval is found exactly once afterwards, open or folded into its hour.

const hour = 3_600_000;

t.test('SIGKILL during statement fold passes: every interval counted once', async (t) => {
  const { stateDir, db, databaseIds } = preparedState(t, 10);
  const now = Date.now();
  const from = Math.floor((now - 3 * hour) / hour) * hour;
  const statementsPerInterval = 20;
  const intervals = (now - 10 * 60_000 - from) / 10_000;
  const insertStatement = db.prepare('INSERT INTO statements (id, database_id, fingerprint, query, first_seen_ts, last_seen_ts) VALUES (?, ?, ?, ?, ?, ?)');
  const insertInterval = db.prepare('INSERT INTO statement_intervals VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  let expectedCalls = 0;
  db.transaction(() => {
    for (const [d, databaseId] of databaseIds.entries()) {
      const keys = Array.from({ length: statementsPerInterval }, (_, s) =>
        Number(insertStatement.run(`query_${d}_${s}`, databaseId, String(s), `SELECT ${s}`, from, from).lastInsertRowid),
      );
      for (let i = 1; i <= intervals; i++) {
        const ts = from + i * 10_000;
        for (const [s, key] of keys.entries()) {
          const calls = 1 + ((i + s) % 5);
          expectedCalls += calls;
          insertInterval.run(databaseId, ts, key, ts - 10_000, calls, calls * 1.5, 2, 1);
        }
      }
    }
  })();
  db.close();
  const foldedHours = (state: typeof db) => state.prepare('SELECT count(*) FROM statement_hours').pluck().get() as number;
  let folded = 0;
  for (const pass of [1, 2]) {
    const server = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
    const before = folded;
    await killOnProgress(server, stateDir, `folds of pass ${pass}`, (state) => (folded = foldedHours(state)) > before);
  }
  const { db: between } = openStateDir(stateDir, undefined);
  const openRows = between.prepare('SELECT count(*) FROM statement_intervals WHERE ts <= ?').pluck();
  t.ok((openRows.get(now - 5 * 60_000) as number) > 0, 'the killed passes left intervals to fold');
  t.ok((between.prepare('SELECT count(*) FROM statement_hours').pluck().get() as number) > 0, 'and folded some');
  between.close();
  const server = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
  await passEnded(server, 'statement-fold');
  t.equal((await server.stop()).code, 0);

  const { db: after, secretKey } = openStateDir(stateDir, undefined);
  t.teardown(() => after.close());
  t.equal(after.prepare('SELECT count(*) FROM statement_intervals WHERE ts <= ?').pluck().get(now - 5 * 60_000), 0, 'every closed minute folded');
  const { services } = composeServices(after, secretKey, { startedAt: new Date() });
  let calls = 0;
  for (const databaseId of databaseIds) {
    const rows = services.queries.top({ id: databaseId } as Parameters<typeof services.queries.top>[0], { ms: 30 * 24 * hour, text: '30d' }, 'calls', 100, new Date());
    t.equal(rows.length, statementsPerInterval);
    calls += rows.reduce((sum, row) => sum + row.calls, 0);
  }
  t.equal(calls, expectedCalls, 'every interval once');
});
