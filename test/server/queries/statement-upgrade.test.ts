import t, { type Test } from 'tap';
import { runPass } from '../../../server/jobs/background-job.js';
import { composeServices } from '../../../server/compose-services.js';
import { queryIdOf } from '../../../server/queries/query-id.js';
import { querySorts, type QuerySort } from '../../../server/queries/queries-repository.js';
import { openStateDir } from '../../../server/state-dir.js';
import { migrate } from '../../../server/storage/migrate.js';
import { createTenant } from '../../helpers/test-server.js';
import { tempDir } from '../../helpers/temp-dir.js';

// A state directory with the slow queries of the schema before migration 0017 (one row per statement
// interval, text keys) upgrades in place: every answer reads what the old rows say, before and after folding.

const hour = 3_600_000;

t.test('slow queries of the previous schema upgrade in place and read back', async (t) => {
  const stateDir = tempDir(t, 'dbmon-statements-upgrade-');
  const now = new Date(Math.floor(Date.now() / hour) * hour);
  const { db, secretKey } = openStateDir(stateDir, undefined);
  migrate(db);
  const { services } = composeServices(db, secretKey, { startedAt: now });
  const tenant = createTenant(services, now);
  const databaseIds = ['a', 'b'].map(
    (name) => services.databases.create(tenant.orgId, { name, type: 'postgresql', agent_id: null, connection: { host: 'h', database: 'd', username: 'u', ssl: false }, monitoring: { enabled: true, interval_seconds: 10 } }, now).id,
  );
  db.exec(`DROP TABLE statement_hours; DROP TABLE statement_intervals; DROP TABLE statements;
    CREATE TABLE queries (id TEXT PRIMARY KEY, database_id TEXT NOT NULL REFERENCES databases (id) ON DELETE CASCADE, fingerprint TEXT NOT NULL,
      query TEXT NOT NULL, first_seen_ts INTEGER NOT NULL, last_seen_ts INTEGER NOT NULL, UNIQUE (database_id, fingerprint));
    CREATE TABLE query_samples (database_id TEXT NOT NULL, ts INTEGER NOT NULL, query_id TEXT NOT NULL REFERENCES queries (id) ON DELETE CASCADE,
      interval_start_ts INTEGER, calls REAL NOT NULL, total_time_ms REAL NOT NULL, max_time_ms REAL, rows REAL NOT NULL,
      PRIMARY KEY (database_id, ts, query_id)) WITHOUT ROWID;
    CREATE INDEX query_samples_query ON query_samples (query_id, ts);
    DELETE FROM schema_migrations WHERE version = 17;`);
  const insertQuery = db.prepare('INSERT INTO queries VALUES (?, ?, ?, ?, ?, ?)');
  const insertSample = db.prepare('INSERT INTO query_samples VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const from = now.getTime() - 3 * hour;
  db.transaction(() => {
    for (const [d, databaseId] of databaseIds.entries()) {
      for (let q = 0; q < 8; q++) {
        const id = queryIdOf(databaseId, String(q));
        insertQuery.run(id, databaseId, String(q), `SELECT ${q} FROM t WHERE a = $1`, from + q * 10_000, now.getTime());
        for (let i = q; i < 1080; i += 1 + (q % 3)) {
          const ts = from + (i + 1) * 10_000;
          // Times with fractions of a microsecond: kept to the microsecond once folded.
          insertSample.run(databaseId, ts, id, ts - 10_000 * (1 + (q % 3)), 1 + ((i + d) % 5), 0.3 + ((i * q) % 97) * 1.0000001, q === 3 ? null : (i % 7) + 0.25, i % 4);
        }
      }
    }
  })();
  const ranges = [3 * hour, hour, 30 * 60_000];
  type Sums = { id: string; calls: number; total_time_ms: number; max_time_ms: number | null; rows: number; range_last_ts: number };
  const oldSums = db.prepare<[string, number, number], Sums>(
    `SELECT query_id AS id, sum(calls) AS calls, sum(total_time_ms) AS total_time_ms, max(max_time_ms) AS max_time_ms, sum(rows) AS rows, max(ts) AS range_last_ts
       FROM query_samples WHERE database_id = ? AND ts > ? AND ts <= ? GROUP BY query_id ORDER BY query_id`,
  );
  const expected = databaseIds.flatMap((databaseId) => ranges.map((range) => oldSums.all(databaseId, now.getTime() - range, now.getTime())));
  db.close();

  const { db: upgraded, secretKey: key } = openStateDir(stateDir, undefined);
  t.teardown(() => upgraded.close());
  migrate(upgraded, undefined, now, { backupDir: null });
  const { services: after } = composeServices(upgraded, key, { startedAt: now });
  const answers = (sort: QuerySort) =>
    databaseIds.flatMap((databaseId) =>
      ranges.map((range) =>
        after.queries
          .top({ id: databaseId } as Parameters<typeof after.queries.top>[0], { ms: range, text: '' }, sort, 20, now)
          .map(({ id, calls, total_time_ms, max_time_ms, rows, range_last_ts }) => ({ id, calls, total_time_ms, max_time_ms, rows, range_last_ts }))
          .sort((a, b) => (a.id < b.id ? -1 : 1)),
      ),
    );
  // Folded, a statement minute's times are whole microseconds: at most half a microsecond off per minute summed.
  const closeTo = (t: Test, actual: ReturnType<typeof answers>, label: string) => {
    for (const [i, rows] of actual.entries()) {
      t.same(rows.map(({ id, calls, rows: r, range_last_ts }) => ({ id, calls, rows: r, range_last_ts })), expected[i]!.map(({ id, calls, rows: r, range_last_ts }) => ({ id, calls, rows: r, range_last_ts })), `${label}: counts (${i})`);
      for (const [j, row] of rows.entries()) {
        const old = expected[i]![j]!;
        const off = (a: number | null, b: number | null) => (a === null || b === null ? (a === b ? 0 : Infinity) : Math.abs(a - b));
        t.ok(off(row.total_time_ms, old.total_time_ms) <= 0.0005 * 180 && off(row.max_time_ms, old.max_time_ms) <= 0.0005, `${label}: times of ${row.id} in ${i}`);
      }
    }
  };
  t.equal(upgraded.prepare('SELECT count(*) FROM statements').pluck().get(), 16, 'every statement, with its id');
  for (const sort of querySorts) closeTo(t, answers(sort), `open, by ${sort}`);
  runPass(after.statementFold, now);
  t.equal(upgraded.prepare('SELECT count(*) FROM statement_intervals WHERE ts <= ?').pluck().get(now.getTime() - 120_000), 0, 'everything but the last two minutes folded into hours');
  t.ok((upgraded.prepare('SELECT count(*) FROM statement_hours').pluck().get() as number) >= 6);
  for (const sort of querySorts) closeTo(t, answers(sort), `folded, by ${sort}`);
});
