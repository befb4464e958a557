// What stating the spool's backlog costs the agent per batch sent: `backlogBehind` (the depth and
// the oldest batch behind the one being sent) against `append` of one batch (what every collection
// cycle does to the same spool), at backlogs of several sizes, in one run.
//
//   npm run build && node bench/spool-backlog.js [--calls 2000] [--backlogs 10,1000,100000]
//
// Each backlog is a fresh spool in a temporary directory, filled with one-sample batches of a
// realistic snapshot (about 1 KiB of JSON each); both operations are timed over `--calls` calls
// on the full spool (appends are acknowledged again so the backlog stays the same size).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openSpool } from '../dist/agent/delivery/spool.js';
import { integerFlag, out } from './output.js';

const { values: flags } = parseArgs({
  options: { calls: { type: 'string', default: '2000' }, backlogs: { type: 'string', default: '10,1000,100000' } },
  strict: true,
});
const calls = integerFlag(flags, 'calls');
const backlogs = flags.backlogs.split(',').map(Number);

function sample(i) {
  return {
    database_id: 'db_bench',
    snapshot: {
      timestamp: new Date(Date.UTC(2026, 10, 24) + i * 10_000).toISOString(),
      reachable: true,
      version: '15.19',
      database_size_bytes: 8_000_000 + i,
      metrics: {
        cpu_usage: 12.5,
        memory_usage: 40.25,
        disk_usage: 55.5,
        connections: { active: i % 7, idle: 3, total: (i % 7) + 3, max: 100 },
        throughput: { queries_per_second: 120.5, transactions_per_second: 40.25 },
        latency: { avg_query_time_ms: 1.5, p95_query_time_ms: 4.25, p99_query_time_ms: 9.5, source: 'estimate' },
      },
      counters: Object.fromEntries(Array.from({ length: 20 }, (_, k) => [`pg_stat_database_counter_${k}{datid="1",datname="app"}`, 100_000 + i])),
      collectors: [{ name: 'postgres_activity', duration_ms: 2.5, success: true }],
    },
  };
}

/** Microseconds per call of `fn`, over `calls` calls. */
function perCall(fn) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) fn(i);
  return Number(process.hrtime.bigint() - started) / 1e3 / calls;
}

out(`node ${process.version}, ${calls} calls per figure`);
out('| batches in the spool | backlogBehind, µs/call | append + ack of one batch, µs/call | ratio |');
out('|---:|---:|---:|---:|');
for (const backlog of backlogs) {
  const dir = mkdtempSync(join(tmpdir(), 'dbmon-bench-spool-'));
  const spool = openSpool(join(dir, 'spool.db'), { maxSamples: backlog + calls + 1 });
  try {
    for (let i = 0; i < backlog; i++) spool.append([sample(i)]);
    const head = spool.peek(1)[0].batchId;
    let depth = 0;
    const stated = perCall(() => {
      depth = spool.backlogBehind(head).batches;
    });
    if (depth !== backlog - 1) throw new Error(`backlogBehind counted ${depth}, expected ${backlog - 1}`);
    const appended = perCall((i) => spool.ack(spool.append([sample(backlog + i)]).batchId));
    out(`| ${backlog} | ${stated.toFixed(1)} | ${appended.toFixed(1)} | ${(stated / appended).toFixed(3)} |`);
  } finally {
    spool.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
