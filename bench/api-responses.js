// The answers of this checkout's server and another checkout's, compared request by request: the
// companion of bench/api.js, which is only worth its figures while the answers stay the same.
//
//   npm run build && node bench/api-responses.js --baseline <checkout>
//
// Starts this checkout's server on a fresh state directory, registers 25 databases through the API
// (as bench/api.js does), stops it and copies the state directory; then starts both servers, one on
// each copy, and sends each the same requests in the same order: the list in every paging and filter
// form, other hosts and forwarded headers, each Accept-Encoding, given request ids, HEAD, missing,
// malformed, unknown and mistyped keys, unknown paths and methods, a text body, and a few other
// routes. Status, every header in order and the body's bytes must be the same; the headers that are
// random or the time's (Date, X-Request-Id unless given, a page's CSP nonce) by their length only.
// Exits non-zero on any difference.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort, startChild, stopChild, waitFor } from './child-processes.js';
import { out } from './output.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: flags } = parseArgs({ options: { baseline: { type: 'string' } }, strict: true });
if (flags.baseline === undefined) throw new TypeError('--baseline <checkout> is required');

/** Compared by length: random per request, or the clock's. */
const volatileHeaders = new Set(['date', 'x-request-id', 'content-security-policy']);

async function startServer(children, name, checkout, stateDir) {
  const port = await freePort();
  const proc = startChild(children, name, checkout, [join(checkout, 'dist', 'server', 'main.js')], {
    DBMON_STATE_DIR: stateDir,
    DBMON_HOST: '127.0.0.1',
    DBMON_PORT: String(port),
    DBMON_LOG_LEVEL: 'warn',
  });
  const adminFile = join(stateDir, 'initial-admin.json');
  await waitFor(proc, '/healthz', async () => {
    try {
      return (await globalThis.fetch(`http://127.0.0.1:${port}/healthz`)).status === 200 && readFileSync(adminFile).length > 0;
    } catch {
      return false;
    }
  });
  return { proc, port };
}

/** One raw HTTP exchange: the status, the headers as sent (names and values, in order) and the body's bytes. */
function send(port, { method = 'GET', path, headers = {}, body }) {
  return new Promise((resolvePromise, reject) => {
    // One Host for both servers (each has its own port), unless the request names another.
    const req = request({ host: '127.0.0.1', port, method, path, headers: { host: 'dbmon.test', ...headers }, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolvePromise({ status: res.statusCode, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function differences(base, branch) {
  const found = [];
  if (base.status !== branch.status) found.push(`status ${base.status} / ${branch.status}`);
  const names = (answer) => answer.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
  if (names(base).join() !== names(branch).join()) found.push(`headers ${names(base).join()} / ${names(branch).join()}`);
  for (let i = 0; i < Math.min(base.rawHeaders.length, branch.rawHeaders.length); i += 2) {
    const name = base.rawHeaders[i].toLowerCase();
    const [a, b] = [base.rawHeaders[i + 1], branch.rawHeaders[i + 1]];
    const same = volatileHeaders.has(name) ? a.length === b.length : a === b;
    if (!same) found.push(`${name}: ${a} / ${b}`);
  }
  const digest = (bytes) => createHash('sha256').update(bytes).digest('hex');
  if (digest(base.body) !== digest(branch.body)) found.push(`body ${base.body.length} bytes / ${branch.body.length} bytes, not the same`);
  return found;
}

async function createDatabases(port, apiKey) {
  for (let i = 1; i <= 25; i++) {
    const body = JSON.stringify({
      name: `bench-${String(i).padStart(2, '0')}`,
      type: i % 2 === 0 ? 'postgresql' : 'mysql',
      connection: { host: `db${i}.internal`, database: 'app', username: 'monitor', password: 'not-a-real-password' },
      monitoring: { enabled: false },
    });
    const answer = await send(port, { method: 'POST', path: '/v1/databases', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body });
    if (answer.status !== 201) throw new Error(`creating database ${i}: HTTP ${answer.status} ${answer.body}`);
  }
}

/** The requests, each sent to both servers; `key` is the initial admin's API key. */
function requests(key, unknownKey, databaseId) {
  const auth = { authorization: `Bearer ${key}` };
  const mistyped = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
  const list = '/v1/databases';
  return [
    { path: `${list}?per_page=20`, headers: auth },
    { path: `${list}?per_page=20`, headers: auth },
    { path: list, headers: auth },
    { path: `${list}?page=2&per_page=20`, headers: auth },
    { path: `${list}?per_page=5&page=3`, headers: auth },
    { path: `${list}?per_page=5&page=9`, headers: auth },
    { path: `${list}?type=postgresql&per_page=3`, headers: auth },
    { path: `${list}?status=paused`, headers: auth },
    { path: `${list}?per_page=0`, headers: auth },
    { path: `${list}?per_page=abc`, headers: auth },
    { path: `${list}?unknown=1`, headers: auth },
    { path: `${list}?per_page=20&per_page=5`, headers: auth },
    { path: `${list}?per_page=20`, headers: { ...auth, host: 'dbmon.example.test' } },
    { path: `${list}?per_page=20`, headers: { ...auth, 'x-forwarded-for': '203.0.113.9', 'x-forwarded-host': 'evil.test', 'x-forwarded-proto': 'https' } },
    ...['br', 'gzip', 'gzip;q=0', '', '*', 'identity', 'gzip, deflate, br'].map((encoding) => ({ path: `${list}?per_page=20`, headers: { ...auth, 'accept-encoding': encoding } })),
    { path: `${list}?per_page=20`, headers: { ...auth, 'x-request-id': 'caller-given-id-0001' } },
    { path: `${list}?per_page=20`, headers: { ...auth, 'x-request-id': 'bad id' } },
    { method: 'HEAD', path: `${list}?per_page=20`, headers: auth },
    { path: list },
    { path: list, headers: { authorization: 'Bearer x' } },
    { path: list, headers: { authorization: 'Basic YTpi' } },
    { path: list, headers: { authorization: `Bearer ${mistyped}` } },
    { path: list, headers: { authorization: `Bearer ${mistyped}` } },
    { path: list, headers: { authorization: `Bearer ${key}x` } },
    { path: list, headers: { authorization: `Bearer ${unknownKey}` } },
    { path: list, headers: { authorization: `Bearer ${unknownKey}` } },
    { path: list, headers: { authorization: `Bearer dbm_oat_${'a'.repeat(38)}` } },
    { path: `${list}/${databaseId}`, headers: auth },
    { path: `${list}/db_nosuchdatabase000000`, headers: auth },
    { path: '/v1/nothing', headers: auth },
    { path: '/V1/databases', headers: auth },
    { method: 'DELETE', path: list, headers: auth },
    { method: 'OPTIONS', path: list, headers: auth },
    { method: 'POST', path: list, headers: { ...auth, 'content-type': 'text/plain' }, body: 'hello' },
    { path: '/v1/api-keys', headers: auth },
    { path: '/v1/user', headers: auth },
    { path: '/healthz' },
    { path: '/nowhere', headers: { accept: 'text/html' } },
    { path: '/v1/nowhere', headers: { accept: 'text/html' } },
  ];
}

async function main() {
  const children = [];
  const stateDirs = [];
  try {
    const branchState = mkdtempSync(join(tmpdir(), 'dbmon-responses-'));
    stateDirs.push(branchState);
    const setup = await startServer(children, 'setup', root, branchState);
    const { api_key: key } = JSON.parse(readFileSync(join(branchState, 'initial-admin.json'), 'utf8'));
    await createDatabases(setup.port, key);
    const listed = JSON.parse((await send(setup.port, { path: '/v1/databases?per_page=1', headers: { authorization: `Bearer ${key}` } })).body);
    await stopChild(setup.proc);
    const baseState = mkdtempSync(join(tmpdir(), 'dbmon-responses-'));
    stateDirs.push(baseState);
    cpSync(branchState, baseState, { recursive: true });

    const base = await startServer(children, 'baseline', resolve(flags.baseline), baseState);
    const branch = await startServer(children, 'this checkout', root, branchState);
    let differing = 0;
    // Well-formed, its checksum right, but never issued: made by this checkout's own code.
    const { issueToken } = await import(join(root, 'dist', 'server', 'auth', 'api-keys', 'api-key-token.js'));
    const all = requests(key, issueToken('service_account').value, listed.data[0].id);
    for (const sent of all) {
      const found = differences(await send(base.port, sent), await send(branch.port, sent));
      if (found.length > 0) {
        differing++;
        out(`${sent.method ?? 'GET'} ${sent.path} ${JSON.stringify(sent.headers ?? {})}\n  ${found.join('\n  ')}`);
      }
    }
    out(`${all.length} requests, ${differing} answered differently (baseline: ${resolve(flags.baseline)})`);
    process.exitCode = differing > 0 ? 1 : 0;
  } finally {
    for (const proc of children.reverse()) await stopChild(proc);
    for (const stateDir of stateDirs) rmSync(stateDir, { recursive: true, force: true });
  }
}

await main();
