// The CPU the ingest service spends on a fleet's batches, in this process: no HTTP, no background
// jobs, no other process in the measure (#14 goal 4, the ingest part of bench/fleet-ingest.js).
//
//   npm run build && node bench/fleet-ingest-cpu.js [--root DIR] [--databases 10000] [--rounds 4]
//
// An empty state directory (removed afterwards) gets `--databases` databases, 50 per agent, registered
// with `--root`'s code (as bench/fleet-ingest.js). Each round, 10 s of collection after the one before,
// every agent's batch (its 50 databases' collections, 20 statements each) is stored through the ingest
// service as the route calls it, one after the other. The first round (the first sight of every
// statement) is left out; the CPU of the others (process.cpuUsage, user + system) is reported per batch,
// and as the share of a core those batches would take at the fleet's real cadence.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fleetSamples, openFleet, random, registerFleet, repoRoot } from './fleet-state.js';
import { integerFlag, out, percentile } from './output.js';

const intervalMs = 10_000;
const databasesPerAgent = 50;

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: repoRoot },
    databases: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '4' },
  },
  strict: true,
});
const root = resolve(values.root);
const databaseCount = integerFlag(values, 'databases');
const rounds = integerFlag(values, 'rounds', 2);

const stateDir = mkdtempSync(join(tmpdir(), 'dbmon-bench-ingest-cpu-'));
try {
  out(`root ${root}, ${databaseCount} databases, ${rounds} rounds, load average ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
  const fleet = await registerFleet(root, stateDir, databaseCount, databasesPerAgent);
  const firstTs = Math.floor(Date.now() / intervalMs) * intervalMs - rounds * intervalMs;
  const { db, services } = await openFleet(root, stateDir, new Date(firstTs));
  const opened = new Date(firstTs);
  const agents = fleet.map(({ key }, a) => services.agents.identify(services.apiKeys.authenticate(key, opened), { hostname: `agent-${a}`, version: 'bench' }, opened));
  const next = random(14);
  const cpuMs = [];
  for (let round = 0; round < rounds; round++) {
    const ts = firstTs + round * intervalMs;
    for (const [a, agent] of fleet.entries()) {
      const batch = { batch_id: `ingest-cpu-${a}-${round}`, samples: fleetSamples(agent.databases, ts, next) };
      const source = { kind: 'agent', agent: agents[a] };
      const before = process.cpuUsage();
      const ack = await services.ingest.ingestInSlices(source, batch, new Date(ts + 2_000));
      const cpu = process.cpuUsage(before);
      if (ack.stored !== batch.samples.length) throw new Error(`batch ${batch.batch_id} stored ${ack.stored} of ${batch.samples.length}`);
      if (round > 0) cpuMs.push((cpu.user + cpu.system) / 1000);
    }
  }
  db.close();
  const mean = cpuMs.reduce((sum, ms) => sum + ms, 0) / cpuMs.length;
  const batchesPerSecond = fleet.length / (intervalMs / 1000);
  out(`${cpuMs.length} batches of ${databasesPerAgent} collections x 20 statements after the first round`);
  out(`ingest CPU per batch: mean ${mean.toFixed(2)} ms, p50 ${percentile(cpuMs, 0.5).toFixed(2)} ms, p99 ${percentile(cpuMs, 0.99).toFixed(2)} ms`);
  out(`at ${batchesPerSecond} batches a second: ${((mean * batchesPerSecond) / 10).toFixed(1)} % of a core`);
  out(`load average after ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
} finally {
  rmSync(stateDir, { recursive: true, force: true });
}
