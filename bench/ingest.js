// Samples stored per second through POST /v1/agent/samples (batches of 100 snapshots) against raw
// better-sqlite3 inserts of the same rows, in one run.
//
//   npm run build && node bench/ingest.js [--batches 200] [--workers 4] [--rounds 5] [--warmup 200] [--cpu-prof DIR]
//
// The server runs as a child process (`node dist/server/main.js`, embedded agent off) on a
// temporary state directory; this process is the agent: it posts pre-built batches from
// `--workers` concurrent connections. The baseline inserts the same sample rows with one prepared
// statement, 100 rows per transaction, into a freshly migrated database with the server's pragmas
// (WAL, synchronous=FULL), in this process. Rounds alternate raw/api; medians are reported.
import { Buffer } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { metricCatalog, placeReader } from '../dist/common/metric-catalog.js';
import { migrate } from '../dist/server/storage/migrate.js';
import { openDatabase } from '../dist/server/storage/open-database.js';
import { childCpuMs, freePort, startChild, stopChild, waitFor } from './child-processes.js';
import { integerFlag, out } from './output.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const batchSize = 100;
const targetRatio = 0.3;

const { values: flags } = parseArgs({
  options: {
    batches: { type: 'string', default: '200' },
    workers: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '200' },
    'cpu-prof': { type: 'string' },
  },
  strict: true,
});
const batches = integerFlag(flags, 'batches');
const workers = integerFlag(flags, 'workers');
const rounds = integerFlag(flags, 'rounds');
const warmupBatches = integerFlag(flags, 'warmup', 0);

function snapshot(ts, i) {
  return {
    timestamp: new Date(ts).toISOString(),
    reachable: true,
    version: '15.19',
    database_size_bytes: 8_000_000 + i,
    metrics: {
      cpu_usage: (i % 100) + 0.5,
      memory_usage: 40.25,
      disk_usage: 55.5,
      connections: { active: i % 7, idle: 3, total: (i % 7) + 3, max: 100 },
      throughput: { queries_per_second: 120.5, transactions_per_second: 40.25 },
      latency: { avg_query_time_ms: 1.5, p95_query_time_ms: 4.25, p99_query_time_ms: 9.5, source: 'estimate' },
    },
    counters: { 'pg_stat_database_xact_commit{datid="1",datname="app"}': 100_000 + i, 'pg_stat_database_xact_rollback{datid="1",datname="app"}': 3 },
    collectors: [{ name: 'postgres_activity', duration_ms: 2.5, success: true }],
  };
}

const sampleSpacingMs = 10;
/** Where the next built batch's timestamps begin: a day back, well within what the server accepts. */
let nextSampleMs = Date.now() - 24 * 3_600_000;

/** `count` batches of 100 samples, 10 ms apart and after every sample built before. */
function buildBatches(databaseId, round, count) {
  const start = nextSampleMs;
  nextSampleMs += count * batchSize * sampleSpacingMs;
  return Array.from({ length: count }, (_, b) => ({
    batch_id: `bench-${round}-${String(b).padStart(8, '0')}-${process.pid}`,
    // What an agent states of its spool with every batch, as the agent does.
    spool_dropped_total: 0,
    spool_batches: count - b - 1,
    spool_oldest_batch_age_seconds: count - b - 1 === 0 ? 0 : 1,
    samples: Array.from({ length: batchSize }, (_, s) => {
      const i = b * batchSize + s;
      return { database_id: databaseId, snapshot: snapshot(start + i * sampleSpacingMs, i) };
    }),
  }));
}

const readers = metricCatalog.map((metric) => placeReader(metric.snapshot));

function rowOf(databaseId, ts, snap) {
  return [databaseId, ts, 1, ...readers.map((read) => read(snap)), snap.metrics.latency.source];
}

/** The baseline: the same rows, prepared insert, one transaction per 100 rows, server pragmas. */
function rawInserts(dir, prebuilt) {
  const db = openDatabase(join(dir, `raw-${Date.now()}.db`));
  migrate(db);
  db.pragma('foreign_keys = OFF');
  const columns = ['database_id', 'ts', 'reachable', ...metricCatalog.map((metric) => metric.column), 'latency_source'];
  const insert = db.prepare(`INSERT INTO samples (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
  const insertBatch = db.transaction((batch) => {
    for (const sample of batch.samples) insert.run(...rowOf(sample.database_id, Date.parse(sample.snapshot.timestamp), sample.snapshot));
  });
  const started = process.hrtime.bigint();
  for (const batch of prebuilt) insertBatch(batch);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  db.close();
  return (prebuilt.length * batchSize) / seconds;
}

/** POSTs one body over a kept-alive connection; node:http costs the load generator less CPU than fetch. */
function post(agent, base, agentKey, body) {
  return new Promise((resolvePost, reject) => {
    const request = http.request(`${base}/v1/agent/samples`, {
      method: 'POST',
      agent,
      headers: { Authorization: `Bearer ${agentKey}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolvePost({ status: response.statusCode, result: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      response.on('error', reject);
    });
    request.end(body);
  });
}

/** Samples stored per second, the server's CPU per batch, and the share of a core this process (the load generator) used. */
async function apiIngest(server, base, agentKey, prebuilt) {
  const queue = prebuilt.map((batch) => JSON.stringify(batch));
  const agent = new http.Agent({ keepAlive: true, maxSockets: workers });
  let stored = 0;
  const serverCpuBefore = childCpuMs(server.child.pid);
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let body = queue.shift(); body !== undefined; body = queue.shift()) {
        const { status, result } = await post(agent, base, agentKey, body);
        if (status !== 200) throw new Error(`ingest answered ${status}: ${JSON.stringify(result)}`);
        stored += result.stored;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  const serverCpuMs = childCpuMs(server.child.pid) - serverCpuBefore;
  agent.destroy();
  if (stored !== prebuilt.length * batchSize) throw new Error(`stored ${stored} of ${prebuilt.length * batchSize} samples`);
  return {
    rate: stored / seconds,
    serverCpuMsPerBatch: serverCpuMs / prebuilt.length,
    serverBusy: serverCpuMs / 1000 / seconds,
    generatorBusy: (cpu.user + cpu.system) / 1e6 / seconds,
  };
}

async function setUpServer(children, stateDir) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const profile = flags['cpu-prof'] === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', flags['cpu-prof']];
  const server = startChild(children, 'dbmon server', root, [...profile, join(root, 'dist/server/main.js')], {
    DBMON_STATE_DIR: stateDir,
    DBMON_PORT: String(port),
    DBMON_LOG_LEVEL: 'warn',
    DBMON_AGENT_EMBEDDED: 'false',
  });
  // The server writes the initial credentials once it listens: wait for those too.
  const adminFile = join(stateDir, 'initial-admin.json');
  await waitFor(server, '/healthz', async () => (await globalThis.fetch(`${base}/healthz`)).status === 200 && existsSync(adminFile));
  const admin = JSON.parse(readFileSync(adminFile, 'utf8'));
  const agentKey = execFileSync(
    process.execPath,
    [join(root, 'dist/server/cli.js'), 'keys', 'create', '--org', admin.org_id, '--name', 'bench agent',
      '--permission', 'write', '--service-account', 'bench-agent', '--scopes', 'agent', '--state-dir', stateDir],
    { encoding: 'utf8' },
  ).trim();
  const assignments = await (await globalThis.fetch(`${base}/v1/agent/assignments`, { headers: { Authorization: `Bearer ${agentKey}` } })).json();
  const created = await globalThis.fetch(`${base}/v1/databases`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${admin.api_key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      name: 'bench',
      type: 'postgresql',
      agent_id: assignments.agent_id,
      connection: { host: 'db.internal', database: 'app', username: 'monitor' },
    }),
  });
  return { server, base, agentKey, databaseId: (await created.json()).id };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const children = [];
const dir = mkdtempSync(join(tmpdir(), 'dbmon-bench-ingest-'));
try {
  const { server, base, agentKey, databaseId } = await setUpServer(children, join(dir, 'state'));
  // Unmeasured batches first, so the server's hot paths are compiled before any round counts.
  await apiIngest(server, base, agentKey, buildBatches(databaseId, 0, warmupBatches));
  const raw = [];
  const api = [];
  for (let round = 1; round <= rounds; round++) {
    const prebuilt = buildBatches(databaseId, round, batches);
    raw.push(rawInserts(dir, prebuilt));
    const run = await apiIngest(server, base, agentKey, prebuilt);
    api.push(run.rate);
    out(
      `round ${round}: raw ${raw.at(-1).toFixed(0)} samples/s, api ${run.rate.toFixed(0)} samples/s; ` +
        `server CPU ${run.serverCpuMsPerBatch.toFixed(2)} ms/batch, busy ${(run.serverBusy * 100).toFixed(0)} %, ` +
        `load generator busy ${(run.generatorBusy * 100).toFixed(0)} %`,
    );
  }
  const ratio = median(api) / median(raw);
  out();
  out(`cores ${availableParallelism()}, node ${process.version}, load average ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
  out(`batches of ${batchSize}, ${batches} batches per round, ${workers} concurrent connections, ${rounds} rounds (medians)`);
  out(`raw better-sqlite3 inserts: ${median(raw).toFixed(0)} samples/s`);
  out(`POST /v1/agent/samples:     ${median(api).toFixed(0)} samples/s`);
  out(`ratio api/raw: ${(ratio * 100).toFixed(1)} % (target >= ${targetRatio * 100} %)`);
  if (ratio < targetRatio) process.exitCode = 1;
} catch (error) {
  for (const proc of children) process.stderr.write(`--- ${proc.name} output ---\n${proc.output.join('')}\n`);
  throw error;
} finally {
  await Promise.all(children.map(stopChild));
  rmSync(dir, { recursive: true, force: true });
}
