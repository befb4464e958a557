// A state directory holding a fleet's history, written through the server's own storage code:
// N databases x D days of 10 s samples, collected by 4 agents (N/4 databases each), folded into
// the rollups. Every fleet bench starts from one.
//
//   npm run build && node bench/fleet-state.js [--databases 200] [--days 7] [--root DIR] [--upgrade-from DIR] [--unsealed] [--force]
//
// `--root` is a checkout whose dist/ does the writing (default this one): the "before" figures
// come from a build of the unchanged code. The directory is cached under the temporary directory,
// keyed by that root's migrations (the schema) and the generator's version, so a re-run finds it at once; it is
// never changed by the benches (they read it, or work on a copy). `--upgrade-from DIR` takes the state
// DIR's code generated and opens a copy with `--root`'s code instead (migrating it), so that two
// versions are measured on the same rows in the same places.
//
// Batches are written as agents send them after a short outage: 10 collections of 50 databases
// each, in collection order, so the rows of one database are spread over the table as in a live
// server. Every simulated hour (and at the end) the background jobs a live server runs catch up:
// the rollups are folded, closed rollup spans sealed, and closed hours of raw samples sealed into
// blocks where the code does, so the state looks like a running server's (only the open hour raw).
// `--unsealed` leaves every raw hour in rows, as a server that has just been upgraded to sealing
// finds them: its seal job has the whole history to seal (the heaviest catch-up of the passes).
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { integerFlag, out } from './output.js';

export const repoRoot = resolve(fileURLToPath(import.meta.url), '../..');
const tickMs = 10_000;
const hour = 3_600_000;
const day = 24 * hour;
const agentCount = 4;
const ticksPerBatch = 10;
/** Part of the cache key: raise it when a change here changes what is generated. */
const generatorVersion = 2;

/** The modules of a checkout's dist/ that the fleet benches drive. */
export async function loadServer(root) {
  const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
  const [composition, stateDir, migrate, schema] = await Promise.all([
    load('server/compose-services.js'),
    load('server/state-dir.js'),
    load('server/storage/migrate.js'),
    load('server/databases/databases-schema.js'),
  ]);
  return {
    composeServices: composition.composeServices,
    openStateDir: stateDir.openStateDir,
    migrate: migrate.migrate,
    databaseCreateBody: schema.databaseCreateBody,
    load,
  };
}

/**
 * Opens a fleet state directory with a checkout's code: its database, migrated, and its
 * composition over it (the services, the catalog, what a /metrics scrape reads).
 */
export async function openFleet(root, stateDir, now) {
  const server = await loadServer(root);
  const { db, secretKey } = server.openStateDir(stateDir, undefined);
  server.migrate(db);
  const { services, catalog, scrapeSources } = server.composeServices(db, secretKey, { startedAt: now });
  return { server, db, services, catalog, scrapeSources };
}

/**
 * An empty state directory's organization and `databaseCount` databases, `perAgent` to an agent, registered
 * through `root`'s services: each agent's key, id and databases (id and index).
 */
export async function registerFleet(root, stateDir, databaseCount, perAgent) {
  const server = await loadServer(root);
  const { db, secretKey } = server.openStateDir(stateDir, undefined);
  server.migrate(db);
  const now = new Date();
  const { services } = server.composeServices(db, secretKey, { startedAt: now });
  const organization = services.identity.createOrganization({ name: 'fleet', plan: 'enterprise' }, now);
  const agents = Array.from({ length: Math.ceil(databaseCount / perAgent) }, (_, a) => {
    const account = services.identity.serviceAccount(organization.id, `fleet-agent-${a}`, 'write', now);
    const key = services.apiKeys.create(organization.id, { kind: 'service_account', serviceAccountId: account.id }, { name: `agent-${a}`, permission: 'write', scopes: ['agent'] }, now).value;
    const row = services.agents.identify(services.apiKeys.authenticate(key, now), { hostname: `agent-${a}`, version: 'bench' }, now);
    return { key, id: row.id, databases: [] };
  });
  db.transaction(() => {
    for (let i = 0; i < databaseCount; i++) {
      const agent = agents[Math.floor(i / perAgent)];
      const input = server.databaseCreateBody.parse({
        name: `fleet-${String(i).padStart(5, '0')}`,
        type: 'postgresql',
        agent_id: agent.id,
        connection: { host: `db-${i}.internal`, database: 'app', username: 'monitor' },
        monitoring: { interval_seconds: 10 },
      });
      agent.databases.push({ id: services.databases.create(organization.id, input, now).id, index: i });
    }
  })();
  db.close();
  return agents;
}

/** One collection of each of these databases ({ id, index }) at `ts`, as an agent sends them: the reachable ones with 20 statements (when `withStatements`). */
export function fleetSamples(databases, ts, next, withStatements = true) {
  return databases.map(({ id, index }) => {
    const snapshot = fleetSnapshot(ts, index, next);
    return { database_id: id, snapshot: withStatements && snapshot.reachable ? { ...snapshot, statements: fleetStatements(index, ts) } : snapshot };
  });
}

/** A deterministic stream of numbers in [0, 1). */
export function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** One database's collection at `ts`: values that wander like a real workload's; one in a thousand unreachable. */
export function fleetSnapshot(ts, index, next) {
  const phase = Math.sin((ts / day) * 2 * Math.PI + index);
  const qps = Math.max(0, 200 + 150 * phase + 40 * next());
  const active = Math.floor(next() * 8);
  const idle = 5 + Math.floor(next() * 20);
  const reachable = next() >= 0.001;
  return {
    timestamp: new Date(ts).toISOString(),
    reachable,
    ...(reachable ? {} : { error: 'connect ECONNREFUSED' }),
    version: '15.19',
    database_size_bytes: reachable ? 5_000_000_000 + index * 1_000_000 + Math.floor(ts / 1000) : null,
    counters: { 'pg_stat_database_xact_commit{datid="1",datname="app"}': Math.floor(ts / 100) + index, 'pg_stat_database_xact_rollback{datid="1",datname="app"}': index },
    collectors: [{ name: 'postgres_activity', duration_ms: 2 + next(), success: reachable }],
    metrics: reachable
      ? {
          cpu_usage: 30 + 20 * phase + 5 * next(),
          memory_usage: 60 + 2 * next(),
          disk_usage: 40 + (ts % day) / day,
          connections: { active, idle, total: active + idle, max: 200 },
          throughput: { queries_per_second: qps, transactions_per_second: qps / 3 },
          latency: { avg_query_time_ms: 1 + next(), p95_query_time_ms: 4 + 2 * next(), p99_query_time_ms: 9 + 5 * next(), source: 'estimate' },
          rates: engineRates(qps, phase),
        }
      : {
          cpu_usage: null,
          memory_usage: null,
          disk_usage: null,
          connections: { active: null, idle: null, total: null, max: null },
          throughput: { queries_per_second: null, transactions_per_second: null },
          latency: { avg_query_time_ms: null, p95_query_time_ms: null, p99_query_time_ms: null, source: null },
        },
  };
}

/** One agent's batch of collections at `ts`: each of its databases' snapshot, with its statements when reachable (and `withStatements`). */
export function agentSamples(fleet, agent, ts, next, withStatements = true) {
  return fleetSamples(fleet.databases.filter((database) => database.agent === agent), ts, next, withStatements);
}

/** The `count` statements of a database's collection at `ts`, as pg_stat_statements gives them: lifetime counters. */
export function fleetStatements(index, ts, count = 20) {
  return Array.from({ length: count }, (_, s) => ({
    query_id_source: String(1_000_000 + index * 100 + s),
    query: `SELECT * FROM orders_${s} WHERE customer_id = $1 AND created_at > $2`,
    calls: 10 + ((ts / tickMs + s) % 7),
    total_time_ms: 5 + s,
    max_time_ms: 1 + s / 10,
    rows: 100 + s,
  }));
}

/**
 * pg_stat_database's rates (code before them drops them on ingest), following the statements' rate
 * without drawing from the random stream, so the other values stay those of earlier generators.
 */
function engineRates(qps, phase) {
  const transactions = qps / 3;
  return {
    pg_stat_database_xact_commit: transactions * 0.99,
    pg_stat_database_xact_rollback: transactions * 0.01,
    pg_stat_database_blks_read: 20 + 10 * phase,
    pg_stat_database_blks_hit: qps * 40,
    pg_stat_database_tup_returned: qps * 120,
    pg_stat_database_tup_fetched: qps * 15,
    pg_stat_database_tup_inserted: transactions,
    pg_stat_database_tup_updated: transactions * 3,
    pg_stat_database_tup_deleted: transactions * 0.1,
    pg_stat_database_temp_bytes: phase > 0.9 ? 65_536 : 0,
    pg_stat_database_deadlocks: 0,
  };
}

function cacheKey(root, databases, days, upgradeFrom, unsealed) {
  const hash = createHash('sha256').update(`${generatorVersion} ${databases}x${days}${unsealed ? ' unsealed' : ''}`);
  if (upgradeFrom !== undefined) hash.update(`upgraded from ${cacheKey(upgradeFrom, databases, days, undefined, unsealed)}`);
  const migrations = join(root, 'dist/server/storage/migrations');
  for (const name of readdirSync(migrations).sort()) hash.update(name).update(readFileSync(join(migrations, name)));
  return hash.digest('hex').slice(0, 12);
}

/** A background job's pass to its end at once, without the scheduler. */
export function runJob(job, now) {
  while (job.slice(now, Number.POSITIVE_INFINITY)) {
    // every slice until the pass is done
  }
}

/** Folds whatever is pending into the rollups, with the old synchronous call or by running the job's slices, then seals their closed spans where the code does. */
export function foldAll(services, now) {
  if (typeof services.rollups.fold === 'function') services.rollups.fold();
  else runJob(services.rollups, now);
  if (services.rollupSeal !== undefined) runJob(services.rollupSeal, now);
}

/**
 * Seals every closed hour of raw samples into blocks where the code does: passes of the seal job
 * (each seals a bounded number of hours) until one seals nothing.
 */
function sealAll(services, db, now) {
  if (services.seal === undefined) return;
  const sealedHours = db.prepare('SELECT count(*) FROM sample_hours').pluck();
  for (let before = -1; before !== sealedHours.get(); ) {
    before = sealedHours.get();
    runJob(services.seal, now);
  }
}

/**
 * The fleet's state directory and its description, generated first when not cached. With
 * `upgradeFrom` (another checkout), it is that checkout's fleet state opened (so migrated) by this
 * one's code: the same rows in the same places, as an installation upgraded in place has them.
 */
export async function fleetState({ root = repoRoot, databases = 200, days = 7, force = false, upgradeFrom = undefined, unsealed = false } = {}) {
  const dir = join(tmpdir(), `dbmon-fleet-${databases}x${days}-${cacheKey(root, databases, days, upgradeFrom, unsealed)}`);
  const descriptionFile = join(dir, 'fleet.json');
  if (!force && existsSync(descriptionFile)) return { dir, fleet: JSON.parse(readFileSync(descriptionFile, 'utf8')) };
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const fleet =
    upgradeFrom === undefined ? await generate(root, partial, databases, days, unsealed) : await upgrade(root, upgradeFrom, partial, databases, days, unsealed);
  writeFileSync(join(partial, 'fleet.json'), `${JSON.stringify(fleet, null, 2)}\n`);
  renameSync(partial, dir);
  return { dir, fleet };
}

async function upgrade(root, upgradeFrom, stateDir, databases, days, unsealed) {
  const { dir, fleet } = await fleetState({ root: upgradeFrom, databases, days, unsealed });
  cpSync(dir, stateDir, { recursive: true });
  const { db } = await openFleet(root, stateDir, new Date(fleet.endMs));
  rmSync(join(stateDir, 'backups'), { recursive: true, force: true });
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return { ...fleet, upgradedBy: root };
}

async function generate(root, stateDir, databaseCount, days, unsealed) {
  const endMs = Math.floor(Date.now() / 60_000) * 60_000;
  const startMs = endMs - days * day;
  const created = new Date(startMs - 3_600_000);
  const { db, services, server } = await openFleet(root, stateDir, created);
  // Nothing here needs to survive a power loss: a broken generation is started again.
  db.pragma('synchronous = OFF');
  const organization = services.identity.createOrganization({ name: 'fleet', plan: 'enterprise' }, created);
  const keyFor = (account, scopes) => {
    const sa = services.identity.serviceAccount(organization.id, account, 'write', created);
    return services.apiKeys.create(organization.id, { kind: 'service_account', serviceAccountId: sa.id }, { name: account, permission: 'write', scopes }, created).value;
  };
  const apiKey = keyFor('fleet-dashboard', undefined);
  const agents = Array.from({ length: agentCount }, (_, i) => {
    const key = keyFor(`fleet-agent-${i}`, ['agent']);
    const row = services.agents.identify(services.apiKeys.authenticate(key, created), { hostname: `agent-${i}`, version: 'bench' }, created);
    return { key, row };
  });
  const databases = Array.from({ length: databaseCount }, (_, i) => {
    const agent = agents[i % agentCount];
    const input = server.databaseCreateBody.parse({
      name: `fleet-${String(i).padStart(5, '0')}`,
      type: 'postgresql',
      agent_id: agent.row.id,
      connection: { host: `db-${i}.internal`, database: 'app', username: 'monitor' },
      monitoring: { interval_seconds: 10 },
    });
    return { id: services.databases.create(organization.id, input, created).id, agent: i % agentCount, index: i };
  });
  const next = random(14);
  const started = Date.now();
  let stored = 0;
  for (let batchStart = startMs; batchStart < endMs; batchStart += ticksPerBatch * tickMs) {
    const ticks = Array.from({ length: Math.min(ticksPerBatch, (endMs - batchStart) / tickMs) }, (_, t) => batchStart + t * tickMs);
    const now = new Date(ticks.at(-1) + 2_000);
    for (let a = 0; a < agentCount; a++) {
      const mine = databases.filter((database) => database.agent === a);
      const samples = ticks.flatMap((ts) => mine.map((database) => ({ database_id: database.id, snapshot: fleetSnapshot(ts, database.index, next) })));
      const batch = { batch_id: `fleet-${a}-${batchStart}`, samples };
      stored += services.ingest.ingest({ kind: 'agent', agent: agents[a].row }, batch, now).stored;
    }
    const reached = batchStart + ticksPerBatch * tickMs;
    if ((reached - startMs) % hour === 0 || reached >= endMs) {
      foldAll(services, now);
      if (!unsealed) sealAll(services, db, now);
    }
    if ((reached - startMs) % day === 0 || reached >= endMs) {
      out(`generated ${((reached - startMs) / day).toFixed(2)} of ${days} days: ${stored} samples in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return {
    generatedWith: root,
    startMs,
    endMs,
    samples: stored,
    organization: organization.id,
    apiKey,
    agents: agents.map(({ key, row }) => ({ id: row.id, key })),
    databases,
  };
}

/** The fleet benches' common flags (`--root`, `--databases`, `--days`, `--upgrade-from`, `--unsealed`) beside their own. */
export function fleetArgs(options = {}) {
  const { values } = parseArgs({
    options: {
      databases: { type: 'string', default: '200' },
      days: { type: 'string', default: '7' },
      root: { type: 'string', default: repoRoot },
      'upgrade-from': { type: 'string' },
      unsealed: { type: 'boolean', default: false },
      ...options,
    },
    strict: true,
  });
  return {
    ...values,
    root: resolve(values.root),
    upgradeFrom: values['upgrade-from'] === undefined ? undefined : resolve(values['upgrade-from']),
    databases: integerFlag(values, 'databases'),
    days: integerFlag(values, 'days'),
  };
}

/** The machine and run, for a report's first line. */
export function describeRun(flags) {
  return `root ${flags.root}${flags.upgradeFrom === undefined ? '' : ` (state upgraded from ${flags.upgradeFrom})`}, ${flags.databases} databases x ${flags.days} days${flags.unsealed ? ' unsealed' : ''}, cores ${availableParallelism()}, node ${process.version}, load average ${loadavg().map((v) => v.toFixed(2)).join(' ')}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const flags = fleetArgs({ force: { type: 'boolean', default: false } });
  const started = Date.now();
  const { dir, fleet } = await fleetState(flags);
  out(`${dir}: ${fleet.databases.length} databases, ${fleet.samples} samples (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}
