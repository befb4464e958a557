// What the spool keeps resident while it grows (the server down), and its CPU per batch, for this
// build or another one (`--root`, a directory with its own dist/), in one run.
//
//   npm run build && node bench/spool-memory.js [--root DIR] [--batches 300] [--metrics 600]
//
// A child node (with the agent's `#!` flags) opens a fresh spool in a temporary directory and
// appends --batches one-sample batches of a snapshot of --metrics numbers (600 make about 18 KiB
// of JSON, a PostgreSQL sample with its statements), as an agent does while its server is down;
// it reports the growth of its resident memory outside V8's heap (RssAnon minus heap total, both
// after a full GC) and its CPU per append. Then, on a second fresh spool, the same number of
// batches each appended, handed out and acknowledged, as while the server is up: CPU and wall
// time per delivered batch.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { shebangNodeFlags } from './agent-process.js';
import { integerFlag, out } from './output.js';

const { values: flags } = parseArgs({
  options: { root: { type: 'string', default: '.' }, batches: { type: 'string', default: '300' }, metrics: { type: 'string', default: '600' } },
  strict: true,
});
const root = resolve(flags.root);
const batches = integerFlag(flags, 'batches');
const metrics = integerFlag(flags, 'metrics');
const spoolModule = pathToFileURL(join(root, 'dist', 'agent', 'delivery', 'spool.js')).href;

const child = `
  import { readFileSync } from 'node:fs';
  import { openSpool } from ${JSON.stringify(spoolModule)};
  const [dir, batches, metrics] = process.argv.slice(1);
  const outsideHeapKiB = () => {
    globalThis.gc();
    const rssAnon = Number(/RssAnon:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
    return rssAnon - process.memoryUsage().heapTotal / 1024;
  };
  const sample = (i) => ({ database_id: 'db_bench', snapshot: { timestamp: new Date(Date.UTC(2026, 10, 24) + i * 10_000).toISOString(), reachable: true,
    metrics: Object.fromEntries(Array.from({ length: Number(metrics) }, (_, j) => ['metric_' + j, i * j * 1.25])) } });
  const timed = (run) => {
    const cpu = process.cpuUsage(); const wall = performance.now();
    for (let i = 1; i <= Number(batches); i++) run(i);
    const used = process.cpuUsage(cpu);
    return { cpuMs: (used.user + used.system) / 1000 / Number(batches), wallMs: (performance.now() - wall) / Number(batches) };
  };
  const down = openSpool(dir + '/down.db', { maxSamples: 1e6 });
  down.append([sample(0)]);
  const before = outsideHeapKiB();
  const appended = timed((i) => down.append([sample(i)]));
  const grewMiB = (outsideHeapKiB() - before) / 1024;
  down.close();
  const up = openSpool(dir + '/up.db', { maxSamples: 1e6 });
  const delivered = timed((i) => {
    up.append([sample(i)]);
    up.ack(up.nextToSend({ maxSamples: 1000, maxBytes: 1 << 20 }).batchId);
  });
  up.close();
  process.stdout.write(JSON.stringify({ grewMiB, appended, delivered }));
`;

const dir = mkdtempSync(join(tmpdir(), 'dbmon-bench-spool-memory-'));
try {
  const nodeFlags = [...shebangNodeFlags(), '--expose-gc'];
  out(`spool memory bench: ${root}, node ${nodeFlags.join(' ')}, ${batches} batches of ${metrics} metrics, load average ${loadavg()[0].toFixed(2)}`);
  const result = spawnSync(process.execPath, [...nodeFlags, '--input-type=module', '-e', child, dir, String(batches), String(metrics)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`the child failed: ${result.stderr}`);
  const { grewMiB, appended, delivered } = JSON.parse(result.stdout);
  out(`server down: resident memory outside V8's heap grew ${grewMiB.toFixed(1)} MiB; append ${appended.cpuMs.toFixed(3)} ms CPU, ${appended.wallMs.toFixed(2)} ms wall`);
  out(`server up: append + nextToSend + ack ${delivered.cpuMs.toFixed(3)} ms CPU, ${delivered.wallMs.toFixed(2)} ms wall per batch`);
  out(`load average at the end ${loadavg()[0].toFixed(2)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
