// The database page's cost with 30 days of one database's history: the server time of the data
// calls the page makes for each span of its range picker, and the bytes of script and style it loads.
//
//   npm run build && node bench/dashboard.js [--days 30] [--interval 60] [--rounds 30]
//
// The history is written through the ingest service (the ingest API's) in hour-long batches of
// synthetic samples (bench/fleet-state.js's generator, one in a thousand unreachable), rollups
// folded once a simulated day and at the end, as the server's rollup job does. Then the real
// application listens on loopback and each span's three calls (GET the database, its /metrics
// snapshot, its /metrics/history with resolution=auto) are sent together, as the page sends them;
// the wall time is from the first request to the last answer, measured in this process over
// loopback, so it bounds the server time from above; the CPU time is this process's (server and
// client both) over the same calls, which a loaded machine inflates less. Bytes are gzip -9 of the
// files the page links to.
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { fleetSnapshot, foldAll, repoRoot } from './fleet-state.js';
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
const [{ composeServer }, { openStateDir }, { migrate }, { listen }, { createLogger }] = await Promise.all([
  load('server/compose-server.js'),
  load('server/state-dir.js'),
  load('server/storage/migrate.js'),
  load('server/http-server.js'),
  load('common/logger.js'),
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
const readKey = keyFor('bench-dashboard', 'read', undefined);
const database = services.databases.create(
  organization.id,
  { name: 'orders', type: 'postgresql', agent_id: agent.id, connection: { host: 'db.internal', port: 5432, database: 'app', username: 'monitor', ssl: false }, monitoring: { enabled: true, interval_seconds: intervalMs / 1000 } },
  clock.now,
);

let seed = 7;
const next = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const writeStarted = performance.now();
let stored = 0;
for (let batchStart = startMs; batchStart < endMs; batchStart += hour) {
  const samples = [];
  for (let ts = batchStart; ts < Math.min(batchStart + hour, endMs); ts += intervalMs) samples.push({ database_id: database.id, snapshot: fleetSnapshot(ts, 0, next) });
  clock.now = new Date(batchStart + hour + 2_000);
  stored += services.ingest.ingest({ kind: 'agent', agent }, { batch_id: `bench-${batchStart}`, samples }, clock.now).stored;
  if ((batchStart + hour - startMs) % day === 0) foldAll(services, clock.now);
}
clock.now = new Date(endMs);
foldAll(services, clock.now);
out(`${days} days of one database every ${intervalMs / 1000} s: ${stored} samples written in ${((performance.now() - writeStarted) / 1000).toFixed(1)} s; node ${process.version}`);

const server = await listen(app, '127.0.0.1', 0, logger);
const base = `http://127.0.0.1:${server.address().port}`;
const get = async (path) => {
  const response = await globalThis.fetch(`${base}${path}`, { headers: { authorization: `Bearer ${readKey}` } });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${body}`);
  return body;
};
const path = `/v1/databases/${database.id}`;
for (const range of ['1h', '6h', '24h', '7d', '30d']) {
  const calls = [path, `${path}/metrics?range=5m`, `${path}/metrics/history?range=${range}&resolution=auto`];
  const times = [];
  const cpuTimes = [];
  let answer;
  for (let round = 0; round < rounds + 3; round++) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    [, , answer] = await Promise.all(calls.map(get));
    const used = process.cpuUsage(cpu);
    if (round < 3) continue;
    times.push(performance.now() - started);
    cpuTimes.push((used.user + used.system) / 1000);
  }
  const history = JSON.parse(answer);
  out(
    `${range.padEnd(4)} resolution ${history.resolution.padEnd(3)} ${String(history.data.length).padStart(4)} points ${String(Math.round(answer.length / 1024)).padStart(4)} kB: ` +
      `wall p50 ${percentile(times, 0.5).toFixed(1)} ms, p95 ${percentile(times, 0.95).toFixed(1)} ms; CPU p50 ${percentile(cpuTimes, 0.5).toFixed(1)} ms (${times.length} rounds)`,
  );
}
server.close();
db.close();
rmSync(stateDir, { recursive: true, force: true });

const manifest = JSON.parse(readFileSync(join(repoRoot, 'dist/web/manifest.json'), 'utf8'));
const gzipped = (file) => gzipSync(readFileSync(file), { level: 9 }).length;
const own = gzipped(join(repoRoot, 'server/ui/assets/dbmon.css'));
for (const [page, files] of [
  ['overview', ['overview.js']],
  ['database page', ['database-page.js', 'uplot.css']],
]) {
  const sizes = files.map((name) => [name, gzipped(join(repoRoot, 'dist/web', manifest[name]))]);
  const total = own + sizes.reduce((sum, [, size]) => sum + size, 0);
  out(`${page}: ${(total / 1024).toFixed(1)} kB of script and style gzipped (dbmon.css ${(own / 1024).toFixed(1)} kB, ${sizes.map(([name, size]) => `${name} ${(size / 1024).toFixed(1)} kB`).join(', ')})`);
}
