// One collection cycle per engine, and the agent's memory with 10 databases, in one run.
//
//   npm run build && node bench/collect.js [--cycles 20] [--warmup 1] [--databases 10]
//                                          [--settle 20] [--rss-seconds 40] [--node-flags '...'] [--keep]
//
// Part 1, cycle time: creates a throwaway database on the local PostgreSQL (127.0.0.1:5432,
// postgres, trust) and one on the local MariaDB (127.0.0.1:3306, root, no password), puts a
// little traffic in each, builds the agent's own collection for each (createDatabaseCollection
// from dist/, every collector of the engine plus the host collector, as the agent runs them), runs
// --warmup cycles then --cycles measured cycles one after another with a small burst of traffic
// between cycles (not timed), and prints median, p90 and max wall time per cycle and the median
// duration of each collector as the snapshot's `collectors` array reports it.
//
// Part 2, agent memory: creates --databases throwaway databases (half PostgreSQL, half MariaDB),
// writes an agent config in a temporary directory listing them as local databases at
// interval_seconds 10 (the minimum), with server.url on a local port nobody listens on (the agent
// spools while its server is down) and a well-formed agent key, and runs `node <flags>
// dist/agent/main.js run --config <file>`, the node flags being those of the agent's own `#!` line
// unless --node-flags says otherwise: first with zero databases (the baseline), then with 2 (one
// PostgreSQL, one MariaDB), then with all of them, one after the other. Each agent runs --settle
// seconds (for the databases: until every one has spooled two reachable samples, at least --settle
// seconds) before VmRSS is read from /proc/<pid>/status every second for --rss-seconds seconds, with
// the V8 heap the agent reports through bench/agent-memory-probe.js (loaded with --import); prints
// median and max, and the agent's CPU per spooled sample (one database's cycle) in that window.
//
// The machine may be shared: the 1-minute load average is printed at each phase. Every database
// is dropped and every agent stopped at the end, also on failure. Exits non-zero if a cycle found
// its database unreachable, a collector failed, or an agent exited or spooled an unreachable sample.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { createDatabaseCollection } from '../dist/agent/collection/database-collection.js';
import { createLogger } from '../dist/common/logger.js';
import { issueToken } from '../dist/server/auth/api-keys/api-key-token.js';
import { childCpuMs, freePort, stopChild } from './child-processes.js';
import { integerFlag, out } from './output.js';
import { createThrowaway, dropAll, traffic } from './throwaway-databases.js';
import { agentEntry, agentYaml, checkAlive, heapMiB, shebangNodeFlags, spooled, startAgent, vmRssKiB } from './agent-process.js';


/** The deadline the agent gives one cycle at the default interval of 60 s (80 %, capped at 30 s). */
const cycleTimeoutMs = 30_000;
const agentIntervalSeconds = 10;

const { values: flags } = parseArgs({
  options: {
    cycles: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '1' },
    databases: { type: 'string', default: '10' },
    settle: { type: 'string', default: '20' },
    'rss-seconds': { type: 'string', default: '40' },
    'node-flags': { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
});
const settings = {
  cycles: integerFlag(flags, 'cycles'),
  warmup: integerFlag(flags, 'warmup', 0),
  databases: integerFlag(flags, 'databases'),
  settle: integerFlag(flags, 'settle'),
  rssSeconds: integerFlag(flags, 'rss-seconds'),
};

function load1() {
  return loadavg()[0].toFixed(2);
}

/** Every 1-minute load average seen during the run, for the summary line. */
const loadSamples = [];
function noteLoad() {
  loadSamples.push(loadavg()[0]);
}

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest rank: the p90 of 20 values is the 18th.
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function row(cells, widths) {
  return cells.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join('  ');
}

// --- part 1: cycle time per engine ---

async function measureCycles(database, logger) {
  const collection = createDatabaseCollection(
    { id: 'db_bench', name: database.name, type: database.type, interval_seconds: 60, connection: database.settings },
    { logger, timeoutMs: cycleTimeoutMs, procRoot: '/proc', diskPath: '/' },
  );
  const walls = [];
  const byCollector = new Map();
  const failures = [];
  try {
    for (let i = 0; i < settings.warmup + settings.cycles; i++) {
      await traffic(database, 5);
      const started = performance.now();
      const snapshot = await collection.collect(new Date());
      const wall = performance.now() - started;
      if (!snapshot.reachable) throw new Error(`${database.type}: cycle ${i + 1} found the database unreachable: ${snapshot.error}`);
      for (const outcome of snapshot.collectors) {
        if (!outcome.success) failures.push(`${outcome.name}: ${outcome.error}`);
      }
      if (i < settings.warmup) continue;
      walls.push(wall);
      for (const outcome of snapshot.collectors) {
        if (!byCollector.has(outcome.name)) byCollector.set(outcome.name, []);
        byCollector.get(outcome.name).push(outcome.duration_ms);
      }
    }
  } finally {
    await collection.close();
  }
  if (failures.length > 0) throw new Error(`${database.type}: collectors failed: ${[...new Set(failures)].join('; ')}`);
  return { walls, byCollector };
}

// --- part 2: agent RSS ---

async function measureAgent(children, name, configFile, databaseCount, nodeFlags, memoryFile) {
  const proc = startAgent(children, name, configFile, nodeFlags, memoryFile);
  const startedAt = Date.now();
  // Settle: at least --settle seconds, and until every database spooled two samples.
  const deadline = startedAt + 120_000;
  for (;;) {
    checkAlive(proc);
    const counts = spooled(proc);
    const collected = [...counts.values()].filter((n) => n >= 2).length;
    if (Date.now() - startedAt >= settings.settle * 1000 && collected >= databaseCount) break;
    if (Date.now() > deadline) throw new Error(`${name}: only ${collected} of ${databaseCount} databases spooled two samples in 120 s`);
    await sleep(250);
  }
  const settledSeconds = (Date.now() - startedAt) / 1000;
  const pid = proc.child.pid;
  const samples = [];
  const heapUsed = [];
  const heapTotal = [];
  const cpuBefore = childCpuMs(pid);
  const spooledBefore = [...spooled(proc).values()].reduce((a, b) => a + b, 0);
  const windowStart = performance.now();
  for (let s = 0; s < settings.rssSeconds; s++) {
    checkAlive(proc);
    samples.push(vmRssKiB(pid) / 1024);
    const heap = heapMiB(proc);
    if (heap !== undefined) {
      heapUsed.push(heap.used);
      heapTotal.push(heap.total);
    }
    noteLoad();
    await sleep(1000);
  }
  const windowMs = performance.now() - windowStart;
  const cpuMs = childCpuMs(pid) - cpuBefore;
  const cpuPercent = (cpuMs / windowMs) * 100;
  const spooledInWindow = [...spooled(proc).values()].reduce((a, b) => a + b, 0) - spooledBefore;
  checkAlive(proc);
  await stopChild(proc);
  return { settledSeconds, samples, heapUsed, heapTotal, cpuMs, cpuPercent, spooledInWindow };
}

async function main() {
  const workDir = mkdtempSync(join(tmpdir(), 'dbmon-bench-collect-'));
  const created = [];
  const children = [];
  let failed = true;
  try {
    if (!existsSync(agentEntry)) throw new Error(`${agentEntry} is missing; run npm run build first`);
    const cpuModel = cpus()[0]?.model ?? 'unknown CPU';
    out(`dbmon collection bench: node ${process.version}, ${availableParallelism()} CPUs (${cpuModel}), load average at start ${load1()}`);
    out('the databases, this process and the agents share this machine, and other work may be running on it');
    noteLoad();

    // Part 1.
    const logger = createLogger('warn');
    const cycles = {};
    for (const type of ['postgresql', 'mariadb']) {
      const database = await createThrowaway(created, type);
      await traffic(database, 50);
      out();
      out(`${type}: ${settings.warmup} warm-up + ${settings.cycles} measured cycles on ${database.name}, load average ${load1()}`);
      noteLoad();
      cycles[type] = await measureCycles(database, logger);
      noteLoad();
      const { walls, byCollector } = cycles[type];
      out(`  wall ms per cycle: median ${median(walls).toFixed(1)}, p90 ${quantile(walls, 0.9).toFixed(1)}, max ${Math.max(...walls).toFixed(1)}`);
      for (const [name, durations] of byCollector) {
        out(`  ${name.padEnd(32)} median ${median(durations).toFixed(2).padStart(7)} ms  max ${Math.max(...durations).toFixed(2).padStart(7)} ms`);
      }
      out(`  load average after ${load1()}`);
    }

    // Part 2.
    const rssDatabases = [];
    for (let i = 0; i < settings.databases; i++) {
      const database = await createThrowaway(created, i % 2 === 0 ? 'postgresql' : 'mariadb');
      await traffic(database, 10);
      rssDatabases.push(database);
    }
    const serverUrl = `http://127.0.0.1:${await freePort()}`;
    const agentKey = issueToken('service_account').value;
    const nodeFlags = flags['node-flags'] === undefined ? shebangNodeFlags() : flags['node-flags'].split(/\s+/).filter(Boolean);
    out();
    out(`agents run as: node ${[...nodeFlags, '--import', 'bench/agent-memory-probe.js'].join(' ')} dist/agent/main.js run`);
    const runs = [];
    // rssDatabases alternate PostgreSQL and MariaDB: the first two are one of each.
    for (const databases of [[], rssDatabases.slice(0, 2), rssDatabases]) {
      const label = `${databases.length} databases`;
      const configFile = join(workDir, `agent-${databases.length}.yaml`);
      writeFileSync(configFile, agentYaml(serverUrl, agentKey, join(workDir, `state-${databases.length}`), databases, agentIntervalSeconds), { mode: 0o600 });
      out();
      out(`agent with ${label} (server ${serverUrl} down), load average ${load1()}`);
      noteLoad();
      const run = await measureAgent(children, `agent (${label})`, configFile, databases.length, nodeFlags, join(workDir, `memory-${databases.length}.json`));
      runs.push({ databases: databases.length, ...run });
      out(
        `  settled after ${run.settledSeconds.toFixed(1)} s; VmRSS over ${run.samples.length} s: ` +
          `median ${median(run.samples).toFixed(1)} MiB, min ${Math.min(...run.samples).toFixed(1)}, max ${Math.max(...run.samples).toFixed(1)}; ` +
          `V8 heap used median ${median(run.heapUsed).toFixed(1)} MiB of ${median(run.heapTotal).toFixed(1)}; ` +
          `CPU ${run.cpuPercent.toFixed(1)} % of a core; ${run.spooledInWindow} samples spooled in the window; load average ${load1()}`,
      );
    }

    const widths = [12, 10, 10, 10, 10, 10, 12];
    out();
    out(`cycle wall time, ${settings.cycles} cycles after ${settings.warmup} warm-up (ms)`);
    out(row(['engine', 'median', 'p90', 'max'], widths));
    for (const [type, { walls }] of Object.entries(cycles)) {
      out(row([type, median(walls).toFixed(1), quantile(walls, 0.9).toFixed(1), Math.max(...walls).toFixed(1)], widths));
    }
    out();
    out(`agent memory over ${settings.rssSeconds} one-second samples (MiB), and CPU per spooled sample (one database's cycle)`);
    out(row(['databases', 'RSS median', 'RSS max', 'heap used', 'heap total', 'samples', 'CPU ms/sample'], widths));
    for (const run of runs) {
      const perSample = run.spooledInWindow > 0 ? (run.cpuMs / run.spooledInWindow).toFixed(1) : '-';
      out(
        row(
          [run.databases, median(run.samples).toFixed(1), Math.max(...run.samples).toFixed(1), median(run.heapUsed).toFixed(1), median(run.heapTotal).toFixed(1), run.spooledInWindow, perSample],
          widths,
        ),
      );
    }
    const baseline = median(runs[0].samples);
    const loaded = median(runs.at(-1).samples);
    out(`increment: ${(loaded - baseline).toFixed(1)} MiB for ${settings.databases} databases, ${((loaded - baseline) / settings.databases).toFixed(2)} MiB per database`);
    noteLoad();
    out(`1-minute load average during the run: ${Math.min(...loadSamples).toFixed(2)} to ${Math.max(...loadSamples).toFixed(2)} (${availableParallelism()} CPUs)`);
    failed = false;
  } catch (error) {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    for (const proc of children) {
      if (proc.stderr.length > 0) process.stderr.write(`--- ${proc.name} stderr ---\n${proc.stderr.join('')}\n`);
      const tail = proc.lines.filter((line) => line.level >= 40).slice(-10);
      if (tail.length > 0) process.stderr.write(`--- ${proc.name} last warnings ---\n${tail.map((line) => JSON.stringify(line)).join('\n')}\n`);
    }
  } finally {
    for (const proc of children.reverse()) await stopChild(proc);
    await dropAll(created);
    if (flags.keep) out(`work dir kept: ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
  }
  process.exitCode = failed ? 1 : 0;
}

await main();
