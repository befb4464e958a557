import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { secretKeyFileName } from '../../server/crypto/load-secret-key.js';
import { databaseFileName, openStateDir } from '../../server/state-dir.js';
import { acquireStateLock, stateLockFileName } from '../../server/state-lock.js';
import { tempDir } from '../helpers/temp-dir.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Runs `work` under a permissive umask, as a service started with the system default might. */
function withUmask<T>(mask: number, work: () => T): T {
  const previous = process.umask(mask);
  try {
    return work();
  } finally {
    process.umask(previous);
  }
}

t.test('every state file is created owner-only in an owner-only directory', async (t) => {
  const dir = join(tempDir(t, 'dbmon-state-'), 'state');
  const lock = withUmask(0o022, () => acquireStateLock(dir));
  t.teardown(() => lock.release());
  const { db } = withUmask(0o022, () => openStateDir(dir, undefined));
  t.teardown(() => db.close());
  db.exec('CREATE TABLE probe (x); INSERT INTO probe VALUES (1)');
  t.equal(modeOf(dir), 0o700, 'the directory');
  for (const name of [databaseFileName, `${databaseFileName}-wal`, `${databaseFileName}-shm`, secretKeyFileName, stateLockFileName]) {
    t.ok(existsSync(join(dir, name)), `${name} exists`);
    t.equal(modeOf(join(dir, name)), 0o600, name);
  }
});

t.test('looser existing state files are tightened; stricter ones are left as the operator set them', async (t) => {
  const dir = tempDir(t, 'dbmon-state-');
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, secretKeyFileName), `${'ab'.repeat(32)}\n`);
  chmodSync(join(dir, secretKeyFileName), 0o400);
  const first = openStateDir(dir, undefined);
  first.db.exec('CREATE TABLE probe (x)');
  first.db.close();
  chmodSync(join(dir, databaseFileName), 0o644);
  writeFileSync(join(dir, `${databaseFileName}-wal`), '');
  chmodSync(join(dir, `${databaseFileName}-wal`), 0o666);
  writeFileSync(join(dir, stateLockFileName), '');
  chmodSync(join(dir, stateLockFileName), 0o664);

  const lock = acquireStateLock(dir);
  t.teardown(() => lock.release());
  const { db } = openStateDir(dir, undefined);
  t.teardown(() => db.close());
  t.equal(modeOf(dir), 0o700, 'the directory loses group and other access');
  t.equal(modeOf(join(dir, databaseFileName)), 0o600, 'the database');
  t.equal(modeOf(join(dir, `${databaseFileName}-wal`)), 0o600, 'its write-ahead log');
  t.equal(modeOf(join(dir, stateLockFileName)), 0o600, 'the lock');
  t.equal(modeOf(join(dir, secretKeyFileName)), 0o400, 'a read-only secret key stays read-only');
});
