import { chmodSync, copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { acquireStateLock } from '../../../server/state-lock.js';
import { backupDatabase } from '../../../server/storage/backup-database.js';
import { migrate, readMigrations } from '../../../server/storage/migrate.js';
import { openDatabase } from '../../../server/storage/open-database.js';
import { restoreDatabase } from '../../../server/storage/restore-database.js';
import { StateDirBusyError } from '../../../server/storage/storage-errors.js';
import { tempDir } from '../../helpers/temp-dir.js';

const knownVersion = readMigrations().at(-1)!.version;

/** A state directory whose database holds `orgs` organizations, and a backup of it. */
async function prepared(t: Parameters<typeof tempDir>[0], orgs: string[]): Promise<{ stateDir: string; backup: string }> {
  const stateDir = tempDir(t, 'dbmon-restore-');
  const db = openDatabase(join(stateDir, 'dbmon.db'));
  migrate(db);
  for (const name of orgs) db.prepare("INSERT INTO organizations (id, name, slug, plan, created_at) VALUES (?, ?, ?, 'free', 'now')").run(`org_${name}`, name, name);
  const backup = join(tempDir(t, 'dbmon-restore-backup-'), 'backup.db');
  await backupDatabase(db, backup);
  db.close();
  return { stateDir, backup };
}

const orgNames = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT name FROM organizations ORDER BY name').pluck().all();
  } finally {
    db.close();
  }
};

t.test('restore replaces the database and keeps the old one, whole, as .before-restore', async (t) => {
  const { backup } = await prepared(t, ['from-backup']);
  const { stateDir } = await prepared(t, ['live-1', 'live-2']);
  // The live database has committed work still in its -wal: it must end up in .before-restore.
  const live = openDatabase(join(stateDir, 'dbmon.db'));
  live.pragma('wal_autocheckpoint = 0');
  live.prepare("INSERT INTO organizations (id, name, slug, plan, created_at) VALUES ('org_wal', 'in-wal', 'in-wal', 'free', 'now')").run();
  t.ok(existsSync(join(stateDir, 'dbmon.db-wal')));
  live.close();
  writeFileSync(join(stateDir, 'dbmon.db.before-restore-wal'), 'stale wal from an earlier restore');

  const result = restoreDatabase(backup, stateDir, 'dbmon.db', knownVersion);
  t.equal(result.schemaVersion, knownVersion);
  t.equal(result.previous, join(stateDir, 'dbmon.db.before-restore'));
  t.same(orgNames(join(stateDir, 'dbmon.db')), ['from-backup']);
  t.same(orgNames(join(stateDir, 'dbmon.db.before-restore')), ['in-wal', 'live-1', 'live-2'], 'the replaced database with everything committed');
  t.notOk(existsSync(join(stateDir, 'dbmon.db.restoring')));
  t.same(readFileSync(backup).subarray(0, 16).toString(), 'SQLite format 3\0', 'the backup itself is left as it was');

  const db = openDatabase(join(stateDir, 'dbmon.db'));
  t.same(db.prepare('PRAGMA integrity_check').pluck().all(), ['ok']);
  t.same(migrate(db), [], 'the restored database is current');
  db.close();
});

t.test('restore into an empty state directory', async (t) => {
  const { backup } = await prepared(t, ['only']);
  const stateDir = tempDir(t, 'dbmon-restore-empty-');
  const result = restoreDatabase(backup, stateDir, 'dbmon.db', knownVersion);
  t.equal(result.previous, undefined);
  t.same(orgNames(join(stateDir, 'dbmon.db')), ['only']);
});

t.test('a restored database is owner-only whatever the mode of the file it came from', async (t) => {
  const { backup } = await prepared(t, ['only']);
  chmodSync(backup, 0o644);
  const stateDir = tempDir(t, 'dbmon-restore-mode-');
  restoreDatabase(backup, stateDir, 'dbmon.db', knownVersion);
  t.equal(statSync(join(stateDir, 'dbmon.db')).mode & 0o777, 0o600);
});

t.test('restore refuses bad backups and changes nothing', async (t) => {
  const { stateDir, backup } = await prepared(t, ['live']);
  const dir = tempDir(t, 'dbmon-restore-bad-');
  const check = (file: string, error: { name: string; message: RegExp }, message: RegExp) => {
    const thrown = t.throws(() => restoreDatabase(file, stateDir, 'dbmon.db', knownVersion), error, message.source);
    if (error.name === 'InvalidBackupError') {
      t.ok((thrown as Error).message.startsWith(`${file}: `), `the error names the user's file, not the temporary copy: ${(thrown as Error).message}`);
    }
    t.same(orgNames(join(stateDir, 'dbmon.db')), ['live'], 'the live database is untouched');
    t.notOk(existsSync(join(stateDir, 'dbmon.db.before-restore')));
    t.notOk(existsSync(join(stateDir, 'dbmon.db.restoring')), 'no leftovers');
  };

  check(join(dir, 'absent.db'), { name: 'InvalidBackupError', message: /no such file/ }, /absent/);

  const text = join(dir, 'text.db');
  writeFileSync(text, 'this is not a database at all, just some text that is long enough'.repeat(100));
  check(text, { name: 'InvalidBackupError', message: /not a database/ }, /text/);

  const foreign = join(dir, 'foreign.db');
  const other = new Database(foreign);
  other.exec('CREATE TABLE t (x)');
  other.close();
  check(foreign, { name: 'InvalidBackupError', message: /not a dbmon database/ }, /foreign/);

  const corrupt = join(dir, 'corrupt.db');
  copyFileSync(backup, corrupt);
  const bytes = readFileSync(corrupt);
  const pageSize = bytes.readUInt16BE(16);
  bytes.fill(0x5a, pageSize * 2 + 100, pageSize * 3); // scribble over a b-tree page
  writeFileSync(corrupt, bytes);
  check(corrupt, { name: 'InvalidBackupError', message: /integrity check failed|malformed/ }, /corrupt/);

  const newer = join(dir, 'newer.db');
  copyFileSync(backup, newer);
  const db = new Database(newer);
  db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'future', 'now')").run(knownVersion + 1);
  db.close();
  check(newer, { name: 'SchemaTooNewError', message: /newer than this dbmon/ }, /newer/);
});

t.test('restore refuses while the state directory is locked (a server runs)', async (t) => {
  const { stateDir, backup } = await prepared(t, ['live']);
  const lock = acquireStateLock(stateDir);
  t.throws(() => restoreDatabase(backup, stateDir, 'dbmon.db', knownVersion), StateDirBusyError);
  t.same(orgNames(join(stateDir, 'dbmon.db')), ['live']);
  lock.release();
  t.equal(restoreDatabase(backup, stateDir, 'dbmon.db', knownVersion).schemaVersion, knownVersion, 'and goes ahead once it is free');
  const again = acquireStateLock(stateDir);
  again.release();
  t.pass('restore released the lock');
});
