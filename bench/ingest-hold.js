// How long storing one agent batch holds the event loop, on its own (#14 goal 2): the live benches
// see every pass at once, this one only ingest.
//
//   npm run build && node bench/ingest-hold.js [--root DIR] [--databases 200] [--days 1] [--batches 120]
//
// On a copy of the cached fleet state (bench/fleet-state.js; removed afterwards), opened with
// `--root`'s code in this process, the fleet's 4 agents each store a batch of their databases'
// collections (20 statements each) in turn, 10 s of collection apart, through the ingest service
// as the route calls it (`ingestInSlices` where the code has it, else `ingest`), 20 ms apart. The
// event-loop delay (perf_hooks.monitorEventLoopDelay, 1 ms resolution) over the batches is the
// time ingest held the loop: nothing else runs here.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { agentSamples, describeRun, fleetArgs, fleetState, openFleet, random } from './fleet-state.js';
import { integerFlag, out, percentile } from './output.js';

const flags = fleetArgs({ batches: { type: 'string', default: '120' } });
const batches = integerFlag(flags, 'batches');
const intervalMs = 10_000;

const { dir, fleet } = await fleetState(flags);
const copy = mkdtempSync(join(tmpdir(), 'dbmon-bench-hold-'));
try {
  out(describeRun(flags));
  cpSync(dir, copy, { recursive: true });
  const rounds = Math.ceil(batches / fleet.agents.length);
  const firstTs = Math.floor(Date.now() / intervalMs) * intervalMs - rounds * intervalMs;
  const { db, services } = await openFleet(flags.root, copy, new Date(firstTs));
  const opened = new Date(firstTs);
  const agents = fleet.agents.map(({ key }, a) => services.agents.identify(services.apiKeys.authenticate(key, opened), { hostname: `agent-${a}`, version: 'bench' }, opened));
  const next = random(7);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const wallMs = [];
  const cpuMs = [];
  delay.enable();
  for (let b = 0; b < batches; b++) {
    const a = b % fleet.agents.length;
    const ts = firstTs + Math.floor(b / fleet.agents.length) * intervalMs;
    const samples = agentSamples(fleet, a, ts, next);
    const batch = { batch_id: `hold-${a}-${ts}`, samples };
    const source = { kind: 'agent', agent: agents[a] };
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const ack = services.ingest.ingestInSlices
      ? await services.ingest.ingestInSlices(source, batch, new Date(ts + 2_000))
      : services.ingest.ingest(source, batch, new Date(ts + 2_000));
    wallMs.push(performance.now() - started);
    const cpu = process.cpuUsage(cpuBefore);
    cpuMs.push((cpu.user + cpu.system) / 1000);
    if (ack.stored !== samples.length) throw new Error(`batch ${b} stored ${ack.stored} of ${samples.length}`);
    await sleep(20);
  }
  delay.disable();
  db.close();
  const ms = (ns) => (ns / 1e6).toFixed(1);
  const f = (values) => `p50 ${percentile(values, 0.5).toFixed(1)}, p99 ${percentile(values, 0.99).toFixed(1)}, max ${Math.max(...values).toFixed(1)} ms`;
  out(`${batches} batches of ${fleet.databases.length / fleet.agents.length} collections x 20 statements`);
  out(`event loop held (delay): max ${ms(delay.max)} ms, p99.9 ${ms(delay.percentile(99.9))} ms, p99 ${ms(delay.percentile(99))} ms`);
  out(`batch wall time: ${f(wallMs)}; CPU per batch: ${f(cpuMs)}, mean ${(cpuMs.reduce((s, v) => s + v, 0) / cpuMs.length).toFixed(1)} ms`);
} finally {
  rmSync(copy, { recursive: true, force: true });
}
