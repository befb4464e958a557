// The database page's cost with 30 days of one database's history: the server time of the page
// itself and of the data calls it makes for each span of its range picker, and the bytes of script,
// style and history JSON sent as a browser receives them.
//
//   npm run build && node bench/dashboard.js [--days 30] [--interval 60] [--rounds 30]
//
// The history is written through the ingest service (the ingest API's) in hour-long batches of
// synthetic samples (bench/fleet-state.js's generator, one in a thousand unreachable; 20 statements
// each collection), rollups and statements folded once a simulated day and at the end, as the
// server's jobs do. Then the real application listens on loopback and a user signed in through the
// sign-in service (a real session cookie) asks, as Chromium does (Accept-Encoding: gzip, deflate,
// br, zstd): the page's HTML (rendered on the server with its slow queries, optimizations and
// rules), then for each span the four calls its script sends (the database, its /metrics snapshot,
// its /metrics/history with resolution=auto, the alert rules), together. Wall time is from the first
// request to the last answer, in this process over loopback, so it bounds the server time from
// above; CPU time is this process's (server and client both) over the same calls, which a loaded
// machine inflates less; the same calls without Accept-Encoding give compression's cost. Bytes are
// those on the wire, undecoded.
import { mkdtempSync, rmSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { fleetSnapshot, foldAll, repoRoot, runJob } from './fleet-state.js';
import { integerFlag, out, percentile } from './output.js';

const { values: flags } = parseArgs({
  options: { days: { type: 'string', default: '30' }, interval: { type: 'string', default: '60' }, rounds: { type: 'string', default: '30' } },
  strict: true,
});
const days = integerFlag(flags, 'days');
const intervalMs = integerFlag(flags, 'interval', 10) * 1000;
const rounds = integerFlag(flags, 'rounds');
const hour = 3_600_000;
const day = 24 * hour;

const load = (path) => import(join(repoRoot, 'dist', path));
const [{ composeServer }, { openStateDir }, { migrate }, { listen }, { createLogger }, { hashPassword }] = await Promise.all([
  load('server/compose-server.js'),
  load('server/state-dir.js'),
  load('server/storage/migrate.js'),
  load('server/http-server.js'),
  load('common/logger.js'),
  load('server/auth/passwords/password-hash.js'),
]);

const stateDir = mkdtempSync(join(tmpdir(), 'dbmon-bench-dashboard-'));
const endMs = Math.floor(Date.now() / 60_000) * 60_000;
const startMs = endMs - days * day;
const clock = { now: new Date(startMs - hour) };
const { db, secretKey } = openStateDir(stateDir, undefined);
migrate(db);
db.pragma('synchronous = OFF');
const logger = createLogger('warn');
const { app, services } = composeServer(db, secretKey, { logger, now: () => clock.now, bodyLimitBytes: 1 << 20, version: 'bench', startedAt: clock.now });

const organization = services.identity.createOrganization({ name: 'bench', plan: 'enterprise' }, clock.now);
const keyFor = (account, permission, scopes) => {
  const sa = services.identity.serviceAccount(organization.id, account, permission, clock.now);
  return services.apiKeys.create(organization.id, { kind: 'service_account', serviceAccountId: sa.id }, { name: account, permission, scopes }, clock.now).value;
};
const agent = services.agents.identify(services.apiKeys.authenticate(keyFor('bench-agent', 'write', ['agent']), clock.now), { hostname: 'bench', version: 'bench' }, clock.now);
const password = 'bench-kettle-orbit-7';
services.identity.createUser({ orgId: organization.id, email: 'dba@bench.test', role: 'viewer', passwordHash: await hashPassword(password) }, clock.now);
const database = services.databases.create(
  organization.id,
  { name: 'orders', type: 'postgresql', agent_id: agent.id, connection: { host: 'db.internal', port: 5432, database: 'app', username: 'monitor', ssl: false }, monitoring: { enabled: true, interval_seconds: intervalMs / 1000 } },
  clock.now,
);

/** The statements of one collection: 20 of them, their counts moving with time (as bench/fleet-queries.js's). */
function statements(ts) {
  return Array.from({ length: 20 }, (_, s) => ({
    query_id_source: String(1_000_000 + s),
    query: `SELECT * FROM orders_${s} WHERE customer_id = $1 AND created_at > $2`,
    calls: 10 + ((ts / intervalMs + s) % 7),
    total_time_ms: 5 + s + ((ts / intervalMs) % 13) / 7,
    max_time_ms: 1 + s / 10,
    rows: 100 + s,
  }));
}

function fold() {
  foldAll(services, clock.now);
  runJob(services.statementFold, clock.now);
}

let seed = 7;
const next = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const writeStarted = performance.now();
let stored = 0;
for (let batchStart = startMs; batchStart < endMs; batchStart += hour) {
  const samples = [];
  for (let ts = batchStart; ts < Math.min(batchStart + hour, endMs); ts += intervalMs) {
    const snapshot = fleetSnapshot(ts, 0, next);
    samples.push({ database_id: database.id, snapshot: snapshot.reachable ? { ...snapshot, statements: statements(ts) } : snapshot });
  }
  clock.now = new Date(batchStart + hour + 2_000);
  stored += services.ingest.ingest({ kind: 'agent', agent }, { batch_id: `bench-${batchStart}`, samples }, clock.now).stored;
  if ((batchStart + hour - startMs) % day === 0) fold();
}
clock.now = new Date(endMs);
fold();
out(`${days} days of one database every ${intervalMs / 1000} s: ${stored} samples written in ${((performance.now() - writeStarted) / 1000).toFixed(1)} s; node ${process.version}`);

const server = await listen(app, '127.0.0.1', 0, logger);
const { port } = server.address();
const signedIn = await services.accounts.signIn.signIn({ email: 'dba@bench.test', password, ip: '127.0.0.1', userAgent: 'bench' }, clock.now);
if (signedIn.kind !== 'signed_in') throw new Error(`sign-in: ${signedIn.kind}`);
const cookie = `dbmon_session=${signedIn.token}`;
const chromiumEncodings = 'gzip, deflate, br, zstd';

/** A GET as the signed-in browser sends it (`acceptEncoding: null`: none), answered with the bytes as sent (not decoded). */
function get(path, { accept = 'application/json', acceptEncoding = chromiumEncodings } = {}) {
  return new Promise((resolve, reject) => {
    const headers = { cookie, accept, ...(acceptEncoding !== null && { 'accept-encoding': acceptEncoding }) };
    const sent = request({ host: '127.0.0.1', port, path, headers }, (answer) => {
      const chunks = [];
      answer.on('data', (chunk) => chunks.push(chunk));
      answer.on('end', () => {
        const body = Buffer.concat(chunks);
        if (answer.statusCode !== 200) reject(new Error(`${path}: ${answer.statusCode} ${body}`));
        else resolve({ body, encoding: answer.headers['content-encoding'] ?? 'identity' });
      });
    });
    sent.on('error', reject);
    sent.end();
  });
}

/** Wall and CPU time of `calls` sent together, `rounds` times after 3 unmeasured; the last answers. */
async function timed(calls, options) {
  const times = [];
  const cpuTimes = [];
  let answers;
  for (let round = 0; round < rounds + 3; round++) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    answers = await Promise.all(calls.map((call) => get(call, options)));
    const used = process.cpuUsage(cpu);
    if (round < 3) continue;
    times.push(performance.now() - started);
    cpuTimes.push((used.user + used.system) / 1000);
  }
  const figures = `wall p50 ${percentile(times, 0.5).toFixed(1)} ms, p95 ${percentile(times, 0.95).toFixed(1)} ms; CPU p50 ${percentile(cpuTimes, 0.5).toFixed(1)} ms (${times.length} rounds)`;
  return { answers, figures };
}

const kB = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;
const pagePath = `/databases/${database.id}`;
const page = await timed([pagePath], { accept: 'text/html' });
const html = page.answers[0].body.toString('utf8');
if (!html.includes('SELECT * FROM orders_0')) throw new Error('the page lists no slow query');
out(`page HTML (${kB(page.answers[0].body.length)}, ${page.answers[0].encoding}): ${page.figures}`);

const path = `/v1/databases/${database.id}`;
for (const range of ['1h', '6h', '24h', '7d', '30d']) {
  const historyPath = `${path}/metrics/history?range=${range}&resolution=auto`;
  const calls = [path, `${path}/metrics?range=5m`, historyPath, '/v1/alerts/rules?per_page=100&page=1'];
  const { figures } = await timed(calls);
  const uncompressed = await timed(calls, { acceptEncoding: null });
  const sizes = {};
  for (const acceptEncoding of [null, 'gzip', chromiumEncodings]) {
    const { body, encoding } = await get(historyPath, { acceptEncoding });
    sizes[encoding] = body.length;
  }
  const history = JSON.parse((await get(historyPath, { acceptEncoding: null })).body);
  out(
    `${range.padEnd(4)} resolution ${history.resolution.padEnd(3)} ${String(history.data.length).padStart(4)} points, history ${kB(sizes.identity)}, gzip ${kB(sizes.gzip)}, br ${kB(sizes.br)}: ${figures}`,
  );
  out(`     the same calls with no Accept-Encoding: ${uncompressed.figures}`);
}

const sent = async (href) => {
  const { body, encoding } = await get(href, { accept: '*/*' });
  return { href, bytes: body.length, encoding, plainBytes: (await get(href, { accept: '*/*', acceptEncoding: null })).body.length };
};
const assetsOf = (markup) => [...markup.matchAll(/<(?:script|link rel="stylesheet")[^>]*(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]);
const overviewHtml = (await get('/', { accept: 'text/html' })).body.toString('utf8');
for (const [name, markup] of [
  ['overview', overviewHtml],
  ['database page', html],
]) {
  const files = await Promise.all(assetsOf(markup).map(sent));
  const total = files.reduce((sum, file) => sum + file.bytes, 0);
  const plain = files.reduce((sum, file) => sum + file.plainBytes, 0);
  out(`${name}: ${kB(total)} of script and style as sent, ${kB(plain)} uncompressed (${files.map((file) => `${file.href.replace(/^.*\//, '').replace(/\?.*$/, '')} ${kB(file.bytes)} ${file.encoding}`).join(', ')})`);
}
server.close();
db.close();
rmSync(stateDir, { recursive: true, force: true });
