import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { checkToken } from '../../server/auth/api-keys/api-key-token.js';
import { databaseFileName } from '../../server/state-dir.js';
import { parseJson, serverEntry, spawnProcess, spawnServer, type SpawnedProcess } from '../helpers/spawn-server.js';

/** The compiled server with the embedded agent at its default (on), as `npm start` runs it. */
function startServer(t: { teardown: (fn: () => unknown) => void }, stateDir: string, env: Record<string, string> = {}) {
  return spawnServer(t, { DBMON_STATE_DIR: stateDir, DBMON_AGENT_EMBEDDED: 'true', ...env });
}

function stateDir(t: { teardown: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'dbmon-main-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function stop(running: SpawnedProcess, timeoutMs = 10_000): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
  const started = Date.now();
  running.child.kill('SIGTERM');
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('did not exit in time')), timeoutMs).unref());
  const exit = await Promise.race([running.exited, timeout]);
  return { ...exit, ms: Date.now() - started };
}

t.test('first start, second start, health and shutdown', async (t) => {
  const dir = stateDir(t);
  const first = await startServer(t, dir);
  const adminFile = join(dir, 'initial-admin.json');

  const stat = statSync(adminFile);
  t.equal(stat.mode & 0o777, 0o600, 'initial-admin.json is owner-only');
  const admin = JSON.parse(readFileSync(adminFile, 'utf8')) as Record<string, string>;
  t.same(Object.keys(admin).sort(), ['api_key', 'email', 'org_id', 'password'], 'exactly these keys');
  t.equal(admin.email, 'admin@localhost');
  t.match(admin.org_id, /^org_[0-9A-Za-z]{20,}$/);
  t.match(admin.api_key, /^dbm_sak_[0-9A-Za-z]{38}$/);
  t.ok(admin.password!.length >= 16, 'a long random password');
  t.equal(statSync(join(dir, 'secret.key')).mode & 0o777, 0o600, 'the generated secret key is owner-only');
  t.equal(statSync(dir).mode & 0o777, 0o700, 'the state directory is owner-only');

  const list = await fetch(`${first.url}/v1/databases`, { headers: { authorization: `Bearer ${admin.api_key}` } });
  t.equal(list.status, 200, 'the initial key works');
  t.same(await list.json(), { data: [], pagination: { total: 0, page: 1, per_page: 20 } });
  const created = await fetch(`${first.url}/v1/databases`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin.api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'first', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' } }),
  });
  t.equal(created.status, 201, 'it can write');

  const check = checkToken(admin.api_key!);
  t.ok(check.ok);
  const db = new Database(join(dir, databaseFileName), { readonly: true });
  const keyOrg = db.prepare('SELECT org_id FROM api_keys WHERE token_hash = ?').pluck().get(check.ok ? Buffer.from(check.hash, 'base64') : Buffer.alloc(0));
  t.equal(keyOrg, admin.org_id, "the key belongs to the file's organization");
  t.equal(db.prepare('SELECT email FROM users WHERE org_id = ?').pluck().get(admin.org_id), 'admin@localhost');
  t.equal(db.prepare('SELECT org_id FROM databases').pluck().get(), admin.org_id, 'what the key creates lands in that organization');
  const passwordHash = db.prepare('SELECT password_hash FROM users WHERE org_id = ?').pluck().get(admin.org_id) as string;
  db.close();
  const argon2 = (await import('argon2')).default;
  t.ok(await argon2.verify(passwordHash, admin.password!), 'the password in the file is the admin password');

  const health = await fetch(`${first.url}/healthz`);
  t.equal(health.status, 200);
  t.same(await health.json(), { status: 'ok' });
  const ready = await fetch(`${first.url}/readyz`);
  t.equal(ready.status, 200);
  t.same(await ready.json(), { status: 'ready' });
  t.ok(ready.headers.get('x-request-id'), 'health answers carry a request id too');

  const firstStop = await stop(first);
  t.equal(firstStop.code, 0, 'SIGTERM exits 0');
  const logs = first.stdout.map(parseJson);
  t.ok(logs.every((line) => line !== undefined), 'every stdout line is JSON');
  t.ok(logs.some((line) => line?.msg === 'stopped'), "logs 'stopped'");
  t.ok(logs.some((line) => line?.msg === 'shutting down' && line.signal === 'SIGTERM'));
  const firstStart = logs.find((line) => typeof line?.msg === 'string' && line.msg.startsWith('first start'));
  t.equal(firstStart?.file, adminFile, 'the log names the file');
  const output = [...first.stdout, ...first.stderr].join('\n');
  t.notOk(output.includes(admin.password!), 'the password is never printed');
  t.notOk(output.includes(admin.api_key!), 'the key is never printed');
  t.same(first.stderr, [], 'nothing on stderr');

  const before = readFileSync(adminFile, 'utf8');
  const mtime = statSync(adminFile).mtimeMs;
  const second = await startServer(t, dir);
  t.equal(readFileSync(adminFile, 'utf8'), before, 'the file is not rewritten');
  t.equal(statSync(adminFile).mtimeMs, mtime);
  const again = await fetch(`${second.url}/v1/databases`, { headers: { authorization: `Bearer ${admin.api_key}` } });
  t.equal(again.status, 200, 'the key still works after a restart');
  t.equal(((await again.json()) as { pagination: { total: number } }).pagination.total, 1, 'data survives a restart');
  const secondStop = await stop(second);
  t.equal(secondStop.code, 0);
  t.notOk(
    second.stdout.some((line) => line.includes('first start')),
    'a second start does not claim to be the first',
  );
  const reopened = new Database(join(dir, databaseFileName), { readonly: true });
  t.equal(reopened.prepare('SELECT count(*) FROM organizations').pluck().get(), 1, 'no second organization');
  t.equal(reopened.prepare('SELECT count(*) FROM users').pluck().get(), 1, 'no second admin');
  reopened.close();
});

t.test('an open keep-alive connection does not hold up shutdown', async (t) => {
  const running = await startServer(t, stateDir(t), { DBMON_SHUTDOWN_TIMEOUT_SECONDS: '30' });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  const get = () =>
    new Promise<{ status: number; socketReused: boolean }>((resolve, reject) => {
      const request = httpRequest(`${running.url}/healthz`, { agent }, (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode!, socketReused: request.reusedSocket }));
      });
      request.on('error', reject);
      request.end();
    });
  t.equal((await get()).status, 200);
  const reused = await get();
  t.equal(reused.status, 200);
  t.ok(reused.socketReused, 'the connection is kept alive');

  const result = await stop(running, 20_000);
  t.equal(result.code, 0);
  t.ok(result.ms < 10_000, `exited in ${result.ms} ms, well before the 30 s shutdown timeout`);
  t.ok(running.stdout.some((line) => parseJson(line)?.msg === 'stopped'));
});

t.test('SIGINT stops the server too', async (t) => {
  const running = await startServer(t, stateDir(t));
  running.child.kill('SIGINT');
  const exit = await running.exited;
  t.equal(exit.code, 0);
  t.ok(running.stdout.some((line) => parseJson(line)?.msg === 'shutting down' && parseJson(line)?.signal === 'SIGINT'));
});

t.test('an invalid configuration exits 78 with one line naming the key', async (t) => {
  const dir = stateDir(t);
  const started = spawnProcess(t, { DBMON_STATE_DIR: dir, DBMON_PORT: 'abc' });
  const exit = await started.exited;
  t.equal(exit.code, 78);
  t.equal(started.stderr.length, 1, 'exactly one stderr line');
  t.match(started.stderr[0], /server\.port/);
  t.same(started.stdout, []);
  t.throws(() => statSync(join(dir, databaseFileName)), 'nothing was written to the state directory');

  const badFlag = spawn(process.execPath, [serverEntry, '--prot', '80'], { env: { PATH: process.env.PATH ?? '', DBMON_STATE_DIR: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  badFlag.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => badFlag.on('exit', resolve));
  t.equal(code, 78, 'an unknown flag is a configuration error too');
  t.match(stderr, /prot/);
});
