// Bytes per stored raw value, indexes included (dbstat), of a fleet written through a checkout's
// own ingest (bench/fleet-state.js) and then, where the checkout has one, sealed by its seal job run
// to completion with the scheduler's slice budget: the raw samples' tables and their indexes
// (`samples`, and `sample_hours` once sealed) over the catalog values stored (samples x metrics).
// The pages a seal frees go to SQLite's free list (reused by later inserts) and are not counted.
// Also the seal job's slice hold times. Run it on the base checkout (--root) and on this one, e.g.
// on the base's fleet upgraded in place (--upgrade-from).
//
// The slices' CPU time too (process.cpuUsage): on a loaded machine a slice's wall time also counts
// the time its thread waited for a core.
//
//   npm run build && node bench/sealed-bytes.js [--root DIR] [--upgrade-from DIR] [--databases 200] [--days 1]
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { describeRun, fleetArgs, fleetState, openFleet } from './fleet-state.js';
import { out } from './output.js';

const sliceBudgetMs = 20;
const flags = fleetArgs();
const { root, databases, days, upgradeFrom } = flags;
const { dir, fleet } = await fleetState({ root, databases, days, upgradeFrom });
const copy = mkdtempSync(join(tmpdir(), 'dbmon-sealed-bytes-'));
try {
  cpSync(dir, copy, { recursive: true });
  const now = new Date(fleet.endMs + 3_600_000);
  const { db, services, catalog } = await openFleet(root, copy, now);
  const holds = [];
  const cpus = [];
  let sealedHoursCount = 0;
  if (services.seal !== undefined) {
    const started = performance.now();
    const sealedHours = db.prepare('SELECT count(*) FROM sample_hours').pluck();
    let passes = 0;
    // A pass seals a bounded number of hours: passes until one seals nothing.
    for (let before = -1; before !== sealedHours.get(); passes++) {
      before = sealedHours.get();
      for (let more = true; more; ) {
        const sliceStarted = performance.now();
        const cpuBefore = process.cpuUsage();
        more = services.seal.slice(now, sliceBudgetMs);
        holds.push(performance.now() - sliceStarted);
        const cpu = process.cpuUsage(cpuBefore);
        cpus.push((cpu.user + cpu.system) / 1000);
      }
    }
    sealedHoursCount = sealedHours.get();
    out(`seal: ${passes} passes, ${sealedHoursCount} hours, ${holds.length} slices in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  const tables = ['samples', 'sample_hours'].filter((name) => db.prepare('SELECT 1 FROM sqlite_schema WHERE name = ?').get(name) !== undefined);
  const bytesOf = (table) => db.prepare('SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema WHERE tbl_name = ?)').pluck().get(table);
  const values = fleet.samples * catalog.length;
  out(`${describeRun(flags)}: ${fleet.samples} samples x ${catalog.length} metrics = ${values} values`);
  let total = 0;
  for (const table of tables) {
    const bytes = bytesOf(table);
    total += bytes;
    out(`  ${table} (+ indexes): ${bytes} bytes, ${(bytes / values).toFixed(3)} B/value`);
  }
  out(`  raw samples in all: ${total} bytes, ${(total / values).toFixed(3)} B/value`);
  if (holds.length > 0) {
    const at = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))].toFixed(1);
    const quantiles = (values) => `p50 ${at(values, 0.5)} ms, p99 ${at(values, 0.99)} ms, max ${at(values, 1)} ms`;
    out(`  seal slice hold (budget ${sliceBudgetMs} ms): ${quantiles(holds)}`);
    out(`  seal slice CPU: ${quantiles(cpus)}; ${(cpus.reduce((sum, cpu) => sum + cpu, 0) / sealedHoursCount).toFixed(2)} ms of CPU per sealed hour`);
  }
  db.close();
} finally {
  rmSync(copy, { recursive: true, force: true });
}
