// Ingest CPU per batch, and the alert-evaluation part of it, for a fleet whose organization has
// many alert rules, in this process, with a checkout's code (see fleet-state.js for `--root`).
//
//   npm run build && node bench/fleet-alerts.js [--root DIR] [--databases 200] [--rules 100] [--ticks 120] [--warmup 40]
//
// A fresh state directory with one organization (its stock rules), `--databases` databases collected
// by the embedded agent every 10 s, and `--rules` organization-wide rules spread over every catalog
// metric: most never breached, one in ten breached by about half the databases (they fire, stay
// active and are re-checked each batch). Each 10 s tick ingests 4 batches of a quarter of the
// databases' collections (fleet-state.js's values, no statements), as 4 agents would post them;
// `--warmup` ticks fill the rules' windows before `--ticks` ticks are measured. Reported: CPU
// (process.cpuUsage) per batch around the whole ingest call and around its alert evaluation.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fleetArgs, fleetSnapshot, loadServer, random } from './fleet-state.js';
import { integerFlag, out, percentile } from './output.js';

const flags = fleetArgs({
  rules: { type: 'string', default: '100' },
  ticks: { type: 'string', default: '120' },
  warmup: { type: 'string', default: '40' },
});
const ruleCount = integerFlag(flags, 'rules', 0);
const ticks = integerFlag(flags, 'ticks');
const warmup = integerFlag(flags, 'warmup', 0);
const tickMs = 10_000;
const batchesPerTick = 4;

// Whole hours: two runs in the same hour (main's and this checkout's) collect the same values.
const t0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - (ticks + warmup) * tickMs;
const stateDir = mkdtempSync(join(tmpdir(), 'dbmon-fleet-alerts-'));
const server = await loadServer(flags.root);
const { catalog, db, services } = await compose(new Date(t0 - tickMs));

/** The checkout's composition over the state directory at `now` (a second call reopens it). */
async function compose(now) {
  const { db, secretKey } = server.openStateDir(stateDir, undefined);
  server.migrate(db);
  return { db, ...server.composeServices(db, secretKey, { startedAt: now }) };
}

const organization = services.identity.createOrganization({ name: 'alerts', plan: 'enterprise' }, new Date(t0 - tickMs));
const databases = Array.from({ length: flags.databases }, (_, index) => {
  const input = server.databaseCreateBody.parse({
    name: `alerts-${String(index).padStart(5, '0')}`,
    type: 'postgresql',
    connection: { host: `db-${index}.internal`, database: 'app', username: 'monitor' },
    monitoring: { interval_seconds: tickMs / 1000 },
  });
  return { id: services.databases.create(organization.id, input, new Date(t0 - tickMs)).id, index };
});

// Rules written as a migration or another process would: the composition is made again below.
const metrics = catalog.map((metric) => metric.path);
const insertRule = db.prepare(
  `INSERT INTO alert_rules (id, org_id, name, database_id, metric, operator, threshold, duration_seconds, severity, enabled, created_at, updated_at)
   VALUES (?, ?, ?, NULL, ?, ?, ?, ?, 'warning', 1, ?, ?)`,
);
const createdAt = new Date(t0 - tickMs).toISOString();
for (let i = 0; i < ruleCount; i++) {
  const metric = metrics[i % metrics.length];
  // cpu_usage wanders around 30 +- 20 by database: above 30 is about half of them.
  const breached = i % 10 === 0;
  insertRule.run(`rule_bench${i}`, organization.id, `bench ${i}`, breached ? 'cpu_usage' : metric, '>', breached ? 30 : 1e15, (i % 4) * 60, createdAt, createdAt);
}
db.close();
const reopened = await compose(new Date(t0));

const alerting = reopened.services.alerting;
const evaluateDatabases = alerting.evaluateDatabases.bind(alerting);
let alertCpuUs = 0;
alerting.evaluateDatabases = (ids, now) => {
  const before = process.cpuUsage();
  try {
    return evaluateDatabases(ids, now);
  } finally {
    const used = process.cpuUsage(before);
    alertCpuUs += used.user + used.system;
  }
};

const next = random(14);
const batchCpuMs = [];
const alertMs = [];
out(`root ${flags.root}, ${flags.databases} databases, cores ${availableParallelism()}, node ${process.version}, load average ${loadavg().map((v) => v.toFixed(2)).join(" ")}, ${ruleCount} rules besides the 3 stock ones, ${ticks} ticks of ${batchesPerTick} batches measured after ${warmup}`);
for (let tick = 0; tick < warmup + ticks; tick++) {
  const ts = t0 + tick * tickMs;
  for (let b = 0; b < batchesPerTick; b++) {
    const mine = databases.filter(({ index }) => index % batchesPerTick === b);
    const batch = { batch_id: `alerts-${tick}-${b}`, samples: mine.map(({ id, index }) => ({ database_id: id, snapshot: fleetSnapshot(ts, index, next) })) };
    alertCpuUs = 0;
    const before = process.cpuUsage();
    reopened.services.ingest.ingest({ kind: 'embedded' }, batch, new Date(ts + 2_000));
    const used = process.cpuUsage(before);
    if (tick >= warmup) {
      batchCpuMs.push((used.user + used.system) / 1000);
      alertMs.push(alertCpuUs / 1000);
    }
  }
}
const active = reopened.db.prepare("SELECT count(*) FROM alerts WHERE status = 'active'").pluck().get();
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
const line = (name, values) =>
  out(`${name.padEnd(34)} mean ${mean(values).toFixed(2).padStart(7)} ms  p50 ${percentile(values, 0.5).toFixed(2).padStart(7)} ms  p99 ${percentile(values, 0.99).toFixed(2).padStart(7)} ms`);
line(`ingest CPU per batch of ${databases.length / batchesPerTick}`, batchCpuMs);
line('… of which alert evaluation', alertMs);
out(`alert evaluation per database: ${((mean(alertMs) * batchesPerTick) / databases.length * 1000).toFixed(0)} µs; active alerts at the end: ${active}`);
reopened.db.close();
rmSync(stateDir, { recursive: true, force: true });
