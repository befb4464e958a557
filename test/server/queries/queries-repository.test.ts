import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { composeServices } from '../../../server/compose-services.js';
import { QueriesRepository, type StatementInterval } from '../../../server/queries/queries-repository.js';
import { openStateDir } from '../../../server/state-dir.js';
import { migrate } from '../../../server/storage/migrate.js';
import { createTenant } from '../../helpers/test-server.js';
import { tempDir } from '../../helpers/temp-dir.js';

// The statement key cache: a statement it knows costs no lookup, up to its size, and over it the
// least recently collected databases are forgotten, not the whole cache.

const lookup = 'SELECT key, query, first_seen_ts, last_seen_ts FROM statements WHERE database_id = ';

/** A state database with `count` databases, reopened with every statement it runs written down. */
function fleet(t: Test, count: number) {
  const now = new Date();
  const { db, secretKey } = openStateDir(tempDir(t, 'dbmon-statement-keys-'), undefined);
  migrate(db);
  const { services } = composeServices(db, secretKey, { startedAt: now });
  const { orgId } = createTenant(services, now);
  const databaseIds = Array.from(
    { length: count },
    (_, i) =>
      services.databases.create(orgId, { name: `db-${i}`, type: 'postgresql', agent_id: null, connection: { host: 'h', database: 'd', username: 'u', ssl: false }, monitoring: { enabled: true, interval_seconds: 10 } }, now).id,
  );
  db.close();
  const ran: string[] = [];
  const traced = new Database(db.name, { verbose: (sql) => ran.push(String(sql)) });
  t.teardown(() => traced.close());
  return { db: traced, databaseIds, lookups: () => ran.filter((sql) => sql.startsWith(lookup)).length, now: now.getTime() };
}

const statements = (...fingerprints: string[]): StatementInterval[] =>
  fingerprints.map((fingerprint) => ({ fingerprint, query: `SELECT ${fingerprint}`, calls: 1, total_time_ms: 2, max_time_ms: 2, rows: 1 }));

const noSamples = { lastReachedBefore: () => undefined };

t.test('a fleet of exactly the cache size looks no known statement up', async (t) => {
  const { db, databaseIds, lookups, now } = fleet(t, 2);
  const repository = new QueriesRepository(db, noSamples, 4);
  for (const [i, ts] of [now, now + 10_000, now + 20_000].entries()) {
    const before = lookups();
    for (const databaseId of databaseIds) repository.recordInterval(databaseId, ts, statements('1', '2'));
    t.equal(lookups() - before, i === 0 ? 4 : 0, i === 0 ? 'each statement looked up once' : `collection ${i + 1}: none looked up`);
  }
  t.equal(db.prepare('SELECT count(*) FROM statement_intervals').pluck().get(), 12, 'every interval stored');
});

t.test('over its size the cache forgets the least recently collected database only', async (t) => {
  const { db, databaseIds, lookups, now } = fleet(t, 3);
  const [a, b, c] = databaseIds as [string, string, string];
  const repository = new QueriesRepository(db, noSamples, 4);
  repository.recordInterval(a, now, statements('1', '2'));
  repository.recordInterval(b, now, statements('1', '2'));
  repository.recordInterval(a, now + 10_000, statements('1', '2'));
  repository.recordInterval(c, now, statements('1', '2'));
  const before = lookups();
  repository.recordInterval(a, now + 20_000, statements('1', '2'));
  repository.recordInterval(c, now + 10_000, statements('1', '2'));
  t.equal(lookups() - before, 0, 'the recently collected databases keep their keys');
  repository.recordInterval(b, now + 10_000, statements('1', '2'));
  t.equal(lookups() - before, 2, 'the least recently collected one looks its statements up again');
  t.equal(db.prepare('SELECT count(*) FROM statements').pluck().get(), 6, 'a statement looked up again keeps its key');
  t.equal(db.prepare('SELECT count(DISTINCT statement_key) FROM statement_intervals').pluck().get(), 6);
});
