import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { databaseFileName } from '../../../server/state-dir.js';
import { migrate, readMigrations, type Migration } from '../../../server/storage/migrate.js';
import { openDatabase } from '../../../server/storage/open-database.js';
import { readSchemaVersion } from '../../../server/storage/schema-version.js';
import { SchemaTooNewError } from '../../../server/storage/storage-errors.js';
import { cli } from '../../helpers/cli.js';
import { spawnServer } from '../../helpers/spawn-server.js';
import { tempDir } from '../../helpers/temp-dir.js';

const known = readMigrations();
const knownVersion = known.at(-1)!.version;
const next: Migration = { version: knownVersion + 1, name: 'next', sql: 'CREATE TABLE next_feature (x INTEGER);' };

t.test('a database newer than the program is refused with a clear message, untouched', async (t) => {
  const dir = tempDir(t, 'dbmon-migrate-');
  const db = openDatabase(join(dir, 'dbmon.db'));
  t.teardown(() => db.close());
  migrate(db, [...known, next]);
  const error = t.throws(() => migrate(db, known)) as SchemaTooNewError;
  t.ok(error instanceof SchemaTooNewError);
  t.equal(
    error.message,
    `database schema version ${knownVersion + 1} is newer than this dbmon (knows up to ${knownVersion}); upgrade dbmon or restore a backup`,
  );
  t.equal(error.exitCode, 65);
  t.equal(readSchemaVersion(db), knownVersion + 1, 'nothing was changed');
  t.notOk(existsSync(join(dir, 'backups')), 'and nothing backed up');
});

t.test('a fresh database is migrated without a backup; one with data is backed up first', async (t) => {
  const dir = tempDir(t, 'dbmon-migrate-');
  const db = openDatabase(join(dir, 'dbmon.db'));
  t.teardown(() => db.close());
  const backups: string[] = [];
  const onBackup = (file: string) => backups.push(file);
  migrate(db, known, new Date(), { onBackup });
  t.same(backups, [], 'no backup of an empty database');
  t.notOk(existsSync(join(dir, 'backups')));
  db.exec("INSERT INTO organizations (id, name, slug, plan, created_at) VALUES ('org_1', 'one', 'one', 'free', 'now')");

  t.same(migrate(db, known, new Date(), { onBackup }), [], 'nothing pending');
  t.same(backups, [], 'no backup when there is nothing to apply');

  const now = new Date('2026-11-22T10:04:05.678Z');
  t.same(migrate(db, [...known, next], now, { onBackup }), [next]);
  t.equal(backups.length, 1);
  const expected = join(dir, 'backups', `dbmon-before-${String(next.version).padStart(4, '0')}-20261122T100405678Z.db`);
  t.equal(backups[0], expected, 'named after the version it migrates to and the time');
  t.equal(statSync(expected).mode & 0o777, 0o600, 'owner-only');
  t.equal(statSync(join(dir, 'backups')).mode & 0o777, 0o700);
  const copy = new Database(expected, { readonly: true });
  t.teardown(() => copy.close());
  t.equal(readSchemaVersion(copy), knownVersion, 'the copy is the database as it was before');
  t.equal(copy.prepare('SELECT count(*) FROM organizations').pluck().get(), 1, 'with its data');
  t.same(copy.prepare('PRAGMA integrity_check').pluck().all(), ['ok']);
  t.equal(readSchemaVersion(db), next.version, 'and the database is migrated');

  const noBackups = tempDir(t, 'dbmon-migrate-');
  const other = openDatabase(join(noBackups, 'dbmon.db'));
  t.teardown(() => other.close());
  migrate(other, known);
  migrate(other, [...known, next], new Date(), { backupDir: null });
  t.notOk(existsSync(join(noBackups, 'backups')), 'backupDir: null takes none');
});

t.test('the CLI and the server stop on a newer database; dbmon migrate reports its backup', async (t) => {
  const stateDir = tempDir(t, 'dbmon-migrate-state-');
  const cliOnState = (argv: string[]) => cli([...argv, '--state-dir', stateDir]);
  // A database an older dbmon made (all but the last migration), with data in it.
  const db = openDatabase(join(stateDir, databaseFileName));
  migrate(db, known.slice(0, -1));
  db.exec("INSERT INTO organizations (id, name, slug, plan, created_at) VALUES ('org_1', 'one', 'one', 'free', 'now')");
  db.close();
  const upgraded = await cliOnState(['migrate']);
  t.equal(upgraded.code, 0, upgraded.stderr.join('\n'));
  t.match(upgraded.stderr.join('\n'), /backed up the database to .*backups\/dbmon-before-\d{4}-\d{8}T\d{9}Z\.db before migrating/);
  t.equal(readdirSync(join(stateDir, 'backups')).length, 1);

  const newer = new Database(join(stateDir, databaseFileName));
  newer.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'from-the-future', 'now')").run(knownVersion + 5);
  newer.close();
  const refused = await cliOnState(['orgs', 'create', '--name', 'x']);
  t.equal(refused.code, 65);
  t.same(refused.stderr, [`dbmon: state directory ${stateDir}`, `dbmon: database schema version ${knownVersion + 5} is newer than this dbmon (knows up to ${knownVersion}); upgrade dbmon or restore a backup`]);

  const server = spawnServer(t, { DBMON_STATE_DIR: stateDir });
  await t.rejects(server, /server exited early \(65\): dbmon: database schema version \d+ is newer than this dbmon/, 'the server exits 65 with one line');
});
