// A cheap API read's latency while a fleet ingests at the real cadence and the background passes
// run, against the real server (`node dist/server/main.js` of a checkout, see fleet-state.js).
//
//   npm run build && node bench/fleet-live.js [--root DIR] [--databases 200] [--days 7] [--seconds 150] [--cpu-prof DIR]
//
// On a copy of the cached state directory (removed afterwards), first brought up to the present
// with the checkout's own code (history older than retention dropped, everything folded), so that
// the passes measured are steady-state ones. Then 4 agents each post a batch of their databases'
// collections every 10 s (20 statements per collection), and one client reads
// `GET /v1/databases/{id}` in a loop (25 ms apart), for `--seconds`: long enough for the server's
// rollup and retention passes to run at least twice. Latencies are measured by this process; the
// server's event-loop delay over the same window by bench/event-loop-probe.js inside it.
// `--cpu-prof DIR`: the server writes a V8 CPU profile of its whole run there when it stops, and the
// measured window's loop blocks go beside it in event-loop-blocks.json (read both with bench/loop-blocks.js).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { childCpuMs, cpuProfileArgs, describeBlocks, eventLoopProbe, eventLoopWindow, freePort, keepLoopWindow, startChild, stopChild, waitFor } from './child-processes.js';
import { agentSamples, describeRun, fleetArgs, fleetState, foldAll, openFleet, runJob } from './fleet-state.js';
import { integerFlag, out, percentile } from './output.js';

const flags = fleetArgs({ seconds: { type: 'string', default: '150' }, 'cpu-prof': { type: 'string' } });
const seconds = integerFlag(flags, 'seconds');
const intervalMs = 10_000;

/** Drops what retention drops by now and folds everything, with the checkout's own code, before the server starts. */
async function bringUpToDate(root, stateDir) {
  const now = new Date();
  const { db, services } = await openFleet(root, stateDir, now);
  if (typeof services.rollups.expire === 'function') {
    services.rollups.expire(now.getTime());
    services.queries.expire(now);
  } else {
    runJob(services.retention, now);
  }
  foldAll(services, now);
  db.close();
}

async function timedFetch(url, init, latencies, failures) {
  const started = performance.now();
  try {
    const response = await globalThis.fetch(url, init);
    await response.arrayBuffer();
    latencies.push(performance.now() - started);
    if (!response.ok) failures.push(`${init?.method ?? 'GET'} ${response.status}`);
  } catch (error) {
    failures.push(String(error));
  }
}

const { dir, fleet } = await fleetState(flags);
const copy = mkdtempSync(join(tmpdir(), 'dbmon-bench-live-'));
const children = [];
try {
  out(describeRun(flags));
  out(`copying ${dir} and bringing it up to date`);
  cpSync(dir, copy, { recursive: true });
  await bringUpToDate(flags.root, copy);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const loopFile = join(copy, 'event-loop.json');
  const server = startChild(children, 'dbmon server', flags.root, [...cpuProfileArgs(flags['cpu-prof']), '--import', eventLoopProbe, join(flags.root, 'dist/server/main.js')], {
    DBMON_STATE_DIR: copy,
    DBMON_PORT: String(port),
    DBMON_LOG_LEVEL: 'warn',
    DBMON_AGENT_EMBEDDED: 'false',
    DBMON_BENCH_LOOP_FILE: loopFile,
  });
  await waitFor(server, '/healthz', async () => (await globalThis.fetch(`${base}/healthz`)).status === 200);
  await eventLoopWindow(server, loopFile, 1); // the start-up's window, left out
  const cpuBefore = childCpuMs(server.child.pid);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const reads = [];
  const posts = [];
  const failures = [];
  let random = 0.5;
  const next = () => (random = (random * 9301 + 49297) % 233280) / 233280;

  const agentLoops = fleet.agents.map(async (agent, a) => {
    await sleep((a * intervalMs) / fleet.agents.length);
    for (let round = 0; performance.now() < deadline; round++) {
      const ts = Math.floor(Date.now() / 1000) * 1000;
      const batch = {
        batch_id: `live-${a}-${ts}-${round}`,
        samples: agentSamples(fleet, a, ts, next),
      };
      const body = JSON.stringify(batch);
      await timedFetch(`${base}/v1/agent/samples`, { method: 'POST', headers: { Authorization: `Bearer ${agent.key}`, 'Content-Type': 'application/json' }, body }, posts, failures);
      await sleep(Math.max(0, intervalMs - (Date.now() - ts)));
    }
  });
  const reader = (async () => {
    for (let i = 0; performance.now() < deadline; i++) {
      const database = fleet.databases[i % fleet.databases.length];
      await timedFetch(`${base}/v1/databases/${database.id}`, { headers: { Authorization: `Bearer ${fleet.apiKey}` } }, reads, failures);
      await sleep(25);
    }
  })();
  await Promise.all([...agentLoops, reader]);
  const elapsed = (performance.now() - started) / 1000;
  const serverCpu = (childCpuMs(server.child.pid) - cpuBefore) / 1000 / elapsed;
  const loop = await eventLoopWindow(server, loopFile, 2);
  keepLoopWindow(flags['cpu-prof'], loop);
  const jobLines = (await (await globalThis.fetch(`${base}/metrics`)).text())
    .split('\n')
    .filter((line) => /^dbmon_job_(lag_seconds|last_pass_duration_seconds|passes_total|slice_duration_seconds_(count|bucket\{[^}]*le="0\.(05|1|5)"))/.test(line));
  await stopChild(server);

  const f = (values) =>
    `p50 ${percentile(values, 0.5).toFixed(1)} ms, p99 ${percentile(values, 0.99).toFixed(1)} ms, max ${Math.max(...values).toFixed(0)} ms (${values.length})`;
  out(`state ${dir} (${fleet.databases.length} databases), ${elapsed.toFixed(0)} s`);
  out(`GET /v1/databases/{id}:  ${f(reads)}`);
  out(`POST /v1/agent/samples:  ${f(posts)}`);
  out(`server event loop delay: max ${loop.max} ms, p99.9 ${loop.p999} ms, p99 ${loop.p99} ms, p50 ${loop.p50} ms (${loop.count} samples)`);
  out(`  ${describeBlocks(loop)}`);
  out(`server CPU ${(serverCpu * 100).toFixed(0)} % of a core; failures: ${failures.length === 0 ? 'none' : failures.slice(0, 5).join(', ')}`);
  for (const line of jobLines) out(`  ${line}`);
  if (failures.length > 0) process.exitCode = 1;
} catch (error) {
  for (const proc of children) process.stderr.write(`--- ${proc.name} output ---\n${proc.output.join('')}\n`);
  throw error;
} finally {
  await Promise.all(children.map(stopChild));
  rmSync(copy, { recursive: true, force: true });
}
