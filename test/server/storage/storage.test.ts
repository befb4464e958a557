import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { databaseCreateBody } from '../../../server/databases/databases-schema.js';
import { composeServices } from '../../../server/compose-services.js';
import { migrate, readMigrations, type Migration } from '../../../server/storage/migrate.js';
import { openDatabase, type Db } from '../../../server/storage/open-database.js';

function freshDb(t: { teardown: (fn: () => void) => void }): { db: Db; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'dbmon-storage-'));
  const file = join(dir, 'test.db');
  const db = openDatabase(file);
  t.teardown(() => {
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, file };
}

const tableNames = (db: Db) =>
  db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];

t.test('openDatabase sets durable, concurrent, checked defaults', async (t) => {
  const { db, file } = freshDb(t);
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  t.equal(db.pragma('synchronous', { simple: true }), 2, 'synchronous = FULL');
  t.equal(db.pragma('foreign_keys', { simple: true }), 1);
  t.equal(db.pragma('busy_timeout', { simple: true }), 5000);

  const second = openDatabase(file);
  t.teardown(() => second.close());
  t.equal(second.pragma('journal_mode', { simple: true }), 'wal', 'WAL persists in the file');
  t.equal(second.pragma('foreign_keys', { simple: true }), 1, 'per-connection pragmas are set on every open');
  db.exec('CREATE TABLE shared (x INTEGER)');
  db.exec('BEGIN; INSERT INTO shared VALUES (1);');
  t.equal(second.prepare('SELECT count(*) FROM shared').pluck().get(), 0, 'a reader is not blocked by an open write');
  db.exec('COMMIT');
  t.equal(second.prepare('SELECT count(*) FROM shared').pluck().get(), 1);
});

t.test('migrate applies every migration once and records it', async (t) => {
  const { db } = freshDb(t);
  const migrations = readMigrations();
  t.ok(migrations.length >= 1);
  t.same(
    migrations.map((migration) => migration.version),
    [...migrations.map((migration) => migration.version)].sort((a, b) => a - b),
    'in version order',
  );
  t.equal(migrations[0]!.version, 1);
  t.equal(migrations[0]!.name, 'identity-and-databases');
  const dir = new URL('../../../server/storage/migrations/', import.meta.url).pathname;
  t.equal(migrations.length, readdirSync(dir).filter((file) => /^\d{4}-[a-z0-9-]+\.sql$/.test(file)).length, 'every migration file is read');

  const now = new Date('2030-01-02T03:04:05.000Z');
  const applied = migrate(db, migrations, now);
  t.same(applied.map((migration) => migration.version), migrations.map((migration) => migration.version), 'all applied');
  const recorded = db.prepare('SELECT version, name, applied_at FROM schema_migrations ORDER BY version').all();
  t.same(
    recorded,
    migrations.map((migration) => ({ version: migration.version, name: migration.name, applied_at: now.toISOString() })),
  );
  t.ok(tableNames(db).includes('databases'));
  t.ok(tableNames(db).includes('api_keys'));

  t.same(migrate(db, migrations, now), [], 'a second run applies nothing');
  t.same(migrate(db), [], 'nor does a run with the default list');
  t.equal(db.prepare('SELECT count(*) FROM schema_migrations').pluck().get(), migrations.length, 'no duplicate records');

  const extra: Migration = { version: 9999, name: 'extra', sql: 'CREATE TABLE extra (x INTEGER);' };
  t.same(migrate(db, [...migrations, extra], now), [extra], 'only a new migration is applied');
  t.ok(tableNames(db).includes('extra'));
});

t.test('a failing migration rolls back and records nothing', async (t) => {
  const { db } = freshDb(t);
  const good: Migration = { version: 1, name: 'good', sql: 'CREATE TABLE good (x INTEGER);' };
  const bad: Migration = {
    version: 2,
    name: 'bad',
    sql: 'CREATE TABLE half (x INTEGER); INSERT INTO good VALUES (1); INSERT INTO no_such_table VALUES (1);',
  };
  const after: Migration = { version: 3, name: 'after', sql: 'CREATE TABLE after_bad (x INTEGER);' };
  t.throws(() => migrate(db, [good, bad, after]), /no such table/);
  t.same(db.prepare('SELECT version FROM schema_migrations').pluck().all(), [1], 'only the good migration is recorded');
  t.ok(tableNames(db).includes('good'));
  t.notOk(tableNames(db).includes('half'), 'the statements before the failure are rolled back');
  t.equal(db.prepare('SELECT count(*) FROM good').pluck().get(), 0, 'including its writes');
  t.notOk(tableNames(db).includes('after_bad'), 'later migrations do not run');
  t.notOk(db.inTransaction, 'no transaction is left open');

  const fixed: Migration = { ...bad, sql: 'CREATE TABLE half (x INTEGER);' };
  t.same(migrate(db, [good, fixed, after]).map((migration) => migration.version), [2, 3], 'a fixed migration applies on the next run');
});

t.test('deleting an organization removes everything it owns', async (t) => {
  const { db } = freshDb(t);
  migrate(db);
  const { services } = composeServices(db, Buffer.alloc(32, 1));
  const now = new Date();
  const doomed = services.identity.createOrganization({ name: 'doomed', plan: 'free' }, now);
  const kept = services.identity.createOrganization({ name: 'kept', plan: 'free' }, now);
  for (const organization of [doomed, kept]) {
    const user = services.identity.createUser({ orgId: organization.id, email: `owner@${organization.name}.test`, role: 'owner' }, now);
    services.apiKeys.create(organization.id, { kind: 'personal', userId: user.id }, { name: 'pat', permission: 'write' }, now);
    const account = services.identity.serviceAccount(organization.id, 'bot', 'read', now);
    services.apiKeys.create(organization.id, { kind: 'service_account', serviceAccountId: account.id }, { name: 'sak', permission: 'read' }, now);
    const input = databaseCreateBody.parse({ name: 'db', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u', password: 'p' } });
    services.databases.create(organization.id, input, now);
  }
  const count = (table: string, orgId: string) => db.prepare(`SELECT count(*) FROM ${table} WHERE org_id = ?`).pluck().get(orgId);
  const owned = ['users', 'service_accounts', 'api_keys', 'databases'];
  t.same(owned.map((table) => count(table, doomed.id)), [1, 1, 2, 1], 'the organization owns rows in every table');

  t.equal(db.prepare('DELETE FROM organizations WHERE id = ?').run(doomed.id).changes, 1);
  t.same(owned.map((table) => count(table, doomed.id)), [0, 0, 0, 0], 'all of them go with it');
  t.same(owned.map((table) => count(table, kept.id)), [1, 1, 2, 1], 'another organization keeps its rows');

  t.throws(
    () => db.prepare("INSERT INTO databases (id, org_id, name, type, host, port, database_name, username, ssl, monitoring_enabled, interval_seconds, status, created_at, updated_at) VALUES ('db_x', 'org_missing', 'n', 'mysql', 'h', 1, 'd', 'u', 0, 1, 60, 'pending', 'now', 'now')").run(),
    { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' },
    'foreign keys are enforced',
  );
});
