// Ingest of a whole fleet at the real cadence against the real server (#14 goal 4): what it costs the
// server, and whether every batch is taken in time.
//
//   npm run build && node bench/fleet-ingest.js [--root DIR] [--databases 1000] [--seconds 180] [--warm-up 30] [--cpu-prof DIR]
//
// An empty state directory (removed afterwards) gets one organization and `--databases` databases,
// 50 per agent, registered with `--root`'s code. Its server (`node dist/server/main.js`) then takes
// what the agents post: each agent a batch of its 50 databases' collections every 10 s (20
// statements each), the agents spread evenly over the 10 s, so N/10 collections a second. After
// `--warm-up` seconds (the first sight of every statement) the server's CPU (user + system, /proc)
// and its event-loop delay (bench/event-loop-probe.js) are measured over `--seconds`. A batch is
// refused when it is not answered 200, late when its answer takes longer than the 10 s interval.
// `--cpu-prof DIR`: the server writes a V8 CPU profile of its whole run there when it stops, and the
// measured window's loop blocks go beside it (read both with bench/loop-blocks.js).
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { childCpuMs, cpuProfileArgs, describeBlocks, eventLoopProbe, eventLoopWindow, freePort, keepLoopWindow, startChild, stopChild, waitFor } from './child-processes.js';
import { fleetSamples, random, registerFleet, repoRoot } from './fleet-state.js';
import { integerFlag, out, percentile } from './output.js';

const intervalMs = 10_000;
const databasesPerAgent = 50;

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: repoRoot },
    databases: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '180' },
    'warm-up': { type: 'string', default: '30' },
    'cpu-prof': { type: 'string' },
  },
  strict: true,
});
const root = resolve(values.root);
const databaseCount = integerFlag(values, 'databases');
const seconds = integerFlag(values, 'seconds');
const warmUpSeconds = integerFlag(values, 'warm-up', 0);

const stateDir = mkdtempSync(join(tmpdir(), 'dbmon-bench-ingest-'));
const children = [];
try {
  out(`root ${root}, ${databaseCount} databases, cores ${availableParallelism()}, node ${process.version}, load average ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
  const agents = await registerFleet(root, stateDir, databaseCount, databasesPerAgent);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const loopFile = join(stateDir, 'event-loop.json');
  const server = startChild(children, 'dbmon server', root, [...cpuProfileArgs(values['cpu-prof']), '--import', eventLoopProbe, join(root, 'dist/server/main.js')], {
    DBMON_STATE_DIR: stateDir,
    DBMON_PORT: String(port),
    DBMON_LOG_LEVEL: 'warn',
    DBMON_AGENT_EMBEDDED: 'false',
    DBMON_BENCH_LOOP_FILE: loopFile,
  });
  await waitFor(server, '/healthz', async () => (await globalThis.fetch(`${base}/healthz`)).status === 200);
  await eventLoopWindow(server, loopFile, 1); // the start-up's, left out

  const started = performance.now();
  const measureFrom = started + warmUpSeconds * 1000;
  const deadline = measureFrom + seconds * 1000;
  const measured = { posts: [], refused: [], late: 0, lateStarts: 0, samples: 0 };
  const next = random(14);
  const agentLoops = agents.map(async (agent, a) => {
    await sleep((a * intervalMs) / agents.length);
    const firstAt = performance.now();
    for (let round = 0; ; round++) {
      const due = firstAt + round * intervalMs;
      if (due >= deadline) return;
      await sleep(Math.max(0, due - performance.now()));
      const sentAt = performance.now();
      const ts = Date.now();
      const body = JSON.stringify({ batch_id: `fleet-ingest-${a}-${String(round).padStart(6, '0')}`, samples: fleetSamples(agent.databases, ts, next) });
      const answer = await globalThis
        .fetch(`${base}/v1/agent/samples`, { method: 'POST', headers: { Authorization: `Bearer ${agent.key}`, 'Content-Type': 'application/json' }, body })
        .then(async (response) => ({ status: response.status, text: await response.text() }))
        .catch((error) => ({ status: 0, text: String(error) }));
      const tookMs = performance.now() - sentAt;
      if (sentAt < measureFrom) continue;
      measured.posts.push(tookMs);
      if (sentAt - due > 1000) measured.lateStarts++;
      if (answer.status !== 200) measured.refused.push(`${answer.status} ${answer.text.slice(0, 120)}`);
      else if (tookMs > intervalMs) measured.late++;
      else measured.samples += agent.databases.length;
    }
  });
  await sleep(Math.max(0, measureFrom - performance.now()));
  await eventLoopWindow(server, loopFile, 2); // the warm-up's, left out
  const cpuBefore = childCpuMs(server.child.pid);
  const windowStarted = performance.now();
  await sleep(Math.max(0, deadline - performance.now()));
  const cpuMs = childCpuMs(server.child.pid) - cpuBefore;
  const elapsedS = (performance.now() - windowStarted) / 1000;
  const loop = await eventLoopWindow(server, loopFile, 3);
  keepLoopWindow(values['cpu-prof'], loop);
  await Promise.all(agentLoops);
  // The background passes' slices over 50 ms (and in all), warm-up included: what else held the loop.
  const slices = (await (await globalThis.fetch(`${base}/metrics`)).text())
    .split('\n')
    .filter((line) => /^dbmon_job_slice_duration_seconds_(count|bucket\{le="0\.05")/.test(line))
    .map((line) => line.replace('dbmon_job_slice_duration_seconds_', ''));
  await stopChild(server);

  const { posts } = measured;
  out(`${agents.length} agents x ${databasesPerAgent} databases, a batch each every 10 s; measured ${elapsedS.toFixed(0)} s after ${warmUpSeconds} s of warm-up`);
  out(`server CPU ${((cpuMs / 1000 / elapsedS) * 100).toFixed(1)} % of a core (${(cpuMs / Math.max(1, posts.length)).toFixed(1)} ms per batch)`);
  out(`POST /v1/agent/samples: ${posts.length} batches, ${measured.samples} samples; p50 ${percentile(posts, 0.5)?.toFixed(1)} ms, p99 ${percentile(posts, 0.99)?.toFixed(1)} ms, max ${Math.max(...posts).toFixed(0)} ms`);
  out(`refused ${measured.refused.length}${measured.refused.length > 0 ? ` (${measured.refused.slice(0, 3).join('; ')})` : ''}, late ${measured.late}, sent over 1 s behind schedule ${measured.lateStarts}`);
  out(`server event loop delay: max ${loop.max} ms, p99.9 ${loop.p999} ms, p99 ${loop.p99} ms, p50 ${loop.p50} ms (${loop.count} samples)`);
  out(`  ${describeBlocks(loop)}`);
  out(`job slices: ${slices.join(', ')}`);
  out(`load average after ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
  if (measured.refused.length > 0 || measured.late > 0) process.exitCode = 1;
} catch (error) {
  for (const proc of children) process.stderr.write(`--- ${proc.name} output ---\n${proc.output.join('')}\n`);
  throw error;
} finally {
  await Promise.all(children.map(stopChild));
  rmSync(stateDir, { recursive: true, force: true });
}
