import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { databaseFileName } from '../../server/state-dir.js';
import { serverEntry, spawnProcess, spawnServer } from '../helpers/spawn-server.js';
import { tempDir } from '../helpers/temp-dir.js';

// Each test spawns real servers; on a busy machine that takes longer than the default file timeout.
t.setTimeout(300_000);

/** Starts the server expecting it to fail: its exit code and output. */
async function failedStart(t: Parameters<typeof spawnProcess>[0], env: Record<string, string>, user?: { uid: number; gid: number }) {
  const started = spawnProcess(t, { DBMON_AGENT_EMBEDDED: 'false', DBMON_LOG_LEVEL: 'info', ...env }, serverEntry, user);
  const { code } = await started.exited;
  return { code, stdout: started.stdout, stderr: started.stderr };
}

function assertOneLine(t: Test, stderr: string[], pattern: RegExp): void {
  t.equal(stderr.length, 1, `one line on stderr: ${stderr.join(' | ')}`);
  t.match(stderr[0], pattern);
  t.notMatch(stderr.join('\n'), /\n\s+at |Error:/, 'no stack trace');
}

/**
 * The test runner's coverage hook in a child run as another user cannot write its record under
 * .tap/ when the child exits and prints its own error block (from a `node:` line on): not the server's output.
 */
function withoutHarnessExitError(stderr: string[]): string[] {
  const harness = stderr.findIndex((line) => line.includes('.tap/processinfo'));
  if (harness < 0) return stderr;
  const start = stderr.slice(0, harness).findLastIndex((line) => line.startsWith('node:'));
  return stderr.slice(0, start < 0 ? harness : start);
}

t.test('a taken port: one line, exit 69, and first start writes nothing until the server can listen', async (t) => {
  const dir = tempDir(t, 'dbmon-start-up-');
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.teardown(() => blocker.close());
  const { port } = blocker.address() as AddressInfo;

  const failed = await failedStart(t, { DBMON_STATE_DIR: dir, DBMON_PORT: String(port) });
  t.equal(failed.code, 69);
  assertOneLine(t, failed.stderr, new RegExp(`127\\.0\\.0\\.1:${port}.*in use`));
  t.notOk(existsSync(join(dir, 'initial-admin.json')), 'no initial-admin.json');
  const db = new Database(join(dir, databaseFileName), { readonly: true });
  t.equal(db.prepare('SELECT count(*) FROM organizations').pluck().get(), 0, 'no organization');
  db.close();

  const running = await spawnServer(t, { DBMON_STATE_DIR: dir });
  t.ok(existsSync(join(dir, 'initial-admin.json')), 'the next start that can listen is the first start');
  await running.stop();
});

t.test('an address this host does not have: one line, exit 68', async (t) => {
  const failed = await failedStart(t, { DBMON_STATE_DIR: tempDir(t, 'dbmon-start-up-'), DBMON_HOST: '192.0.2.1', DBMON_METRICS_TOKEN: 'a-long-enough-metrics-token' });
  t.equal(failed.code, 68);
  assertOneLine(t, failed.stderr, /192\.0\.2\.1.*not available/);
});

t.test('a state directory the server may not write: one line, exit 77', async (t) => {
  const parent = tempDir(t, 'dbmon-start-up-');
  const dir = join(parent, 'state');
  mkdirSync(dir, { mode: 0o700 });
  let user: { uid: number; gid: number } | undefined;
  if (process.getuid?.() === 0) {
    chmodSync(parent, 0o755);
    user = { uid: 65534, gid: 65534 };
  } else chmodSync(dir, 0o500);
  const failed = await failedStart(t, { DBMON_STATE_DIR: dir }, user);
  t.equal(failed.code, 77);
  assertOneLine(t, withoutHarnessExitError(failed.stderr), new RegExp(`${dir.replaceAll('/', '\\/')}.*permission`));
});

t.test('a second server on the same state directory: one line, exit 75', async (t) => {
  const dir = tempDir(t, 'dbmon-start-up-');
  const first = await spawnServer(t, { DBMON_STATE_DIR: dir });
  const failed = await failedStart(t, { DBMON_STATE_DIR: dir, DBMON_PORT: '0' });
  t.equal(failed.code, 75);
  assertOneLine(t, failed.stderr, /in use/);
  await first.stop();
});

t.test('/metrics without a token beyond loopback: one line naming metrics.token, exit 78', async (t) => {
  const dir = tempDir(t, 'dbmon-start-up-');
  const failed = await failedStart(t, { DBMON_STATE_DIR: dir, DBMON_HOST: '0.0.0.0' });
  t.equal(failed.code, 78);
  assertOneLine(t, failed.stderr, /metrics\.token/);
  t.notOk(existsSync(join(dir, databaseFileName)), 'nothing written');
});
