// Slow-query storage of a checkout: bytes per statement interval and the top 20 over 24 h of one
// database, on state written through the checkout's own ingest (issue #14, goals 3 and 5).
//
//   npm run build && node bench/fleet-queries.js [--root DIR] [--databases 10] [--hours 24] [--reads 200]
//
// Each database sends a collection every 10 s with 20 statements (as bench/fleet-live.js does), in
// batches of 10 collections of every database, for `--hours` up to now. Where the checkout has the
// statement fold job, it runs once at the end, as the server's scheduler would have (everything but
// the last two minutes folded into hour rows). Bytes are SQLite's pages (dbstat) of the slow-query
// tables and their indexes; reads time `queries.top(…, 24h, total_time, 20)` plus JSON.stringify,
// databases in turn, in process (server time without HTTP and authentication).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { fleetSnapshot, repoRoot, runJob } from './fleet-state.js';
import { integerFlag, out, percentile } from './output.js';

const { values: flags } = parseArgs({
  options: {
    root: { type: 'string', default: repoRoot },
    databases: { type: 'string', default: '10' },
    hours: { type: 'string', default: '24' },
    reads: { type: 'string', default: '200' },
  },
});
const tickMs = 10_000;
const statementsPerCollection = 20;
const ticksPerBatch = 10;
const databaseCount = integerFlag(flags, 'databases');
const hours = integerFlag(flags, 'hours');

const load = (path) => import(pathToFileURL(join(flags.root, 'dist', path)).href);
const [{ composeServices }, { openStateDir }, { migrate }, { databaseCreateBody }] = await Promise.all([
  load('server/compose-services.js'),
  load('server/state-dir.js'),
  load('server/storage/migrate.js'),
  load('server/databases/databases-schema.js'),
]);

function statements(index, ts) {
  return Array.from({ length: statementsPerCollection }, (_, s) => ({
    query_id_source: String(1_000_000 + index * 100 + s),
    query: `SELECT * FROM orders_${s} WHERE customer_id = $1 AND created_at > $2`,
    calls: 10 + ((ts / tickMs + s) % 7),
    total_time_ms: 5 + s + ((ts / tickMs) % 13) / 7,
    max_time_ms: 1 + s / 10,
    rows: 100 + s,
  }));
}

const stateDir = mkdtempSync(join(tmpdir(), 'dbmon-bench-queries-'));
try {
  const now = new Date(Math.floor(Date.now() / tickMs) * tickMs);
  const { db, secretKey } = openStateDir(stateDir, undefined);
  migrate(db);
  const { services } = composeServices(db, secretKey, { startedAt: now });
  const organization = services.identity.createOrganization({ name: 'bench', plan: 'enterprise' }, now);
  const databases = Array.from({ length: databaseCount }, (_, i) => {
    const input = databaseCreateBody.parse({ name: `db-${i}`, type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' }, monitoring: { interval_seconds: 10 } });
    return services.databases.create(organization.id, input, now);
  });
  const ticks = (hours * 3_600_000) / tickMs;
  const next = (() => {
    let i = 0;
    return () => ((i = (i * 1103515245 + 12345) % 2147483648) / 2147483648);
  })();
  const writeStarted = performance.now();
  let statementIntervals = 0;
  let batchNumber = 0;
  for (let tick = 0; tick < ticks; tick += ticksPerBatch) {
    const samples = [];
    for (let k = tick; k < Math.min(ticks, tick + ticksPerBatch); k++) {
      const ts = now.getTime() - (ticks - 1 - k) * tickMs;
      for (const [index, database] of databases.entries()) {
        const snapshot = fleetSnapshot(ts, index, next);
        if (snapshot.reachable) statementIntervals += statementsPerCollection;
        samples.push({ database_id: database.id, snapshot: snapshot.reachable ? { ...snapshot, statements: statements(index, ts) } : snapshot });
      }
    }
    services.ingest.ingest({ kind: 'embedded' }, { batch_id: `bench-queries-${String(++batchNumber).padStart(8, '0')}`, samples }, now);
  }
  const writeMs = performance.now() - writeStarted;
  const folded = services.statementFold !== undefined;
  if (folded) runJob(services.statementFold, now);

  const tables = ['queries', 'query_samples', 'statements', 'statement_intervals', 'statement_hours'];
  const bytes = db
    .prepare(`SELECT sum(pgsize) FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name IN (${tables.map(() => '?').join(', ')}))`)
    .pluck()
    .get(...tables);

  const range = { ms: 86_400_000, text: '24h' };
  const latencies = [];
  const cpuBefore = process.cpuUsage();
  for (let r = 0; r < integerFlag(flags, 'reads'); r++) {
    const database = databases[r % databases.length];
    const started = performance.now();
    const rows = services.queries.top(database, range, 'total_time', 20, now);
    JSON.stringify(rows);
    latencies.push(performance.now() - started);
    if (rows.length !== statementsPerCollection) throw new Error(`expected ${statementsPerCollection} statements, got ${rows.length}`);
  }
  const cpu = process.cpuUsage(cpuBefore);
  db.close();
  out(`root ${flags.root}: ${databaseCount} databases x ${hours} h, ${statementIntervals} statement intervals written in ${(writeMs / 1000).toFixed(1)} s${folded ? ', then folded' : ''}`);
  out(`  bytes per statement interval (tables and indexes): ${(bytes / statementIntervals).toFixed(2)} (${(bytes / 1e6).toFixed(1)} MB)`);
  out(`  top 20 over 24 h, one database, ${latencies.length} reads: p50 ${percentile(latencies, 0.5).toFixed(2)} ms, p99 ${percentile(latencies, 0.99).toFixed(2)} ms, fastest ${Math.min(...latencies).toFixed(2)} ms; CPU ${((cpu.user + cpu.system) / 1000 / latencies.length).toFixed(2)} ms per read on average`);
} finally {
  rmSync(stateDir, { recursive: true, force: true });
}
