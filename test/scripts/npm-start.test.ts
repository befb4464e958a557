import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { parseJson, serverEntry } from '../helpers/spawn-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitUntil } from '../helpers/wait-until.js';

const checkout = fileURLToPath(new URL('../..', import.meta.url));
const scripts = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts;

t.test('npm ci builds the server once (prepare); npm start only runs the built server', async (t) => {
  t.match(scripts.prepare, /^npm run build$/, 'npm ci and npm install run the build');
  t.notMatch(scripts.start, /tsc|build/, 'the start script compiles nothing');

  const builtAt = statSync(serverEntry).mtimeMs;
  const stateDir = tempDir(t, 'dbmon-npm-start-');
  const child = spawn('npm', ['start', '--silent'], {
    cwd: checkout,
    env: { PATH: process.env.PATH ?? '', HOME: stateDir, DBMON_PORT: '0', DBMON_STATE_DIR: stateDir, DBMON_AGENT_EMBEDDED: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  t.teardown(async () => {
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  await waitUntil('the server started by npm start to listen', async () => stdout.split('\n').some((line) => parseJson(line)?.msg === 'dbmon server listening'), 60_000);
  const port = stdout.split('\n').map(parseJson).find((line) => line?.msg === 'dbmon server listening')?.port as number;
  const health = await fetch(`http://127.0.0.1:${port}/healthz`);
  t.equal(health.status, 200, 'the server started by npm start answers');
  t.equal(statSync(serverEntry).mtimeMs, builtAt, 'dist/ was not rebuilt by npm start');
});
