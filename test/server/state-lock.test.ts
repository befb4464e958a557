import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { acquireStateLock, stateLockFileName } from '../../server/state-lock.js';
import { StateDirBusyError } from '../../server/storage/storage-errors.js';
import { childEnv, typescriptLoaderArgs } from '../helpers/spawn-server.js';
import { tempDir } from '../helpers/temp-dir.js';

t.test('one holder at a time; released on release()', async (t) => {
  const dir = join(tempDir(t, 'dbmon-lock-'), 'state');
  const first = acquireStateLock(dir);
  t.equal(first.file, join(dir, stateLockFileName));
  t.equal(statSync(dir).mode & 0o777, 0o700, 'creates the state directory owner-only');
  t.equal(statSync(first.file).mode & 0o777, 0o600);
  const error = t.throws(() => acquireStateLock(dir)) as StateDirBusyError;
  t.ok(error instanceof StateDirBusyError);
  t.equal(error.exitCode, 75);
  t.match(error.message, first.file);
  first.release();
  const second = acquireStateLock(dir);
  second.release();
});

t.test('a holder that dies (SIGKILL) leaves no stale lock behind', async (t) => {
  const dir = tempDir(t, 'dbmon-lock-');
  const entry = new URL('../../server/state-lock.ts', import.meta.url).pathname;
  const script = `const { acquireStateLock } = await import(${JSON.stringify(entry)}); acquireStateLock(${JSON.stringify(dir)}); process.stdout.write('locked\\n'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, [...typescriptLoaderArgs(), '--input-type=module', '-e', script], { env: childEnv({}), stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => void child.kill('SIGKILL'));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve());
    child.on('exit', (code) => reject(new Error(`child exited ${code}`)));
  });
  t.throws(() => acquireStateLock(dir), StateDirBusyError, 'held by the other process');
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  const lock = acquireStateLock(dir);
  t.pass('free again once its holder died, though the file is still there');
  lock.release();
});
