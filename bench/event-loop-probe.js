// Loaded into the server by bench/fleet-live.js with `node --import`: watches the main thread's
// event loop (perf_hooks.monitorEventLoopDelay, 1 ms resolution). On SIGUSR2 it writes what it saw
// since the previous SIGUSR2 (or its start) as one JSON line to the file named by
// DBMON_BENCH_LOOP_FILE, in milliseconds, and starts a new window.
//
// To attribute the long ones, it also lists each block over 40 ms (seen as a late 2 ms timer) with
// the process's CPU time over it (much less than the block: the thread waited, on a write or for a
// core), the garbage collection within it (PerformanceObserver 'gc'), and its span on the monotonic
// clock in µs (process.hrtime, the clock of a V8 CPU profile's timestamps: bench/loop-blocks.js
// finds what ran in it).
import { renameSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { setInterval } from 'node:timers';

const file = process.env.DBMON_BENCH_LOOP_FILE;
const tickMs = 2;
const blockMs = 40;
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

if (file) {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  let blocks = [];
  let collections = [];
  let last = { at: performance.now(), us: monotonicUs(), cpu: process.cpuUsage() };
  const ticker = setInterval(() => {
    const now = { at: performance.now(), us: monotonicUs(), cpu: process.cpuUsage() };
    const held = now.at - last.at - tickMs;
    if (held > blockMs) {
      const cpu = process.cpuUsage(last.cpu);
      blocks.push({ from: last.at, to: now.at, fromUs: last.us, toUs: now.us, held, cpuMs: (cpu.user + cpu.system) / 1000 });
    }
    last = now;
  }, tickMs);
  ticker.unref();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) collections.push({ from: entry.startTime, to: entry.startTime + entry.duration });
  }).observe({ entryTypes: ['gc'] });
  let window = 0;
  process.on('SIGUSR2', () => {
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    const round = (value) => Math.round(value * 10) / 10;
    const [p50, p99, p999] = [50, 99, 99.9].map((percentile) => ms(delay.percentile(percentile)));
    const gcWithin = (block) =>
      collections.reduce((sum, gc) => sum + Math.max(0, Math.min(block.to, gc.to) - Math.max(block.from, gc.from)), 0);
    const over = blocks.map((block) => ({ ms: round(block.held), cpuMs: round(block.cpuMs), gcMs: round(gcWithin(block)), fromUs: block.fromUs, toUs: block.toUs }));
    // Written aside and renamed, so that the bench never reads half a line.
    writeFileSync(`${file}.part`, JSON.stringify({ window: ++window, max: ms(delay.max), p50, p99, p999, count: delay.count, blocks: over }));
    renameSync(`${file}.part`, file);
    delay.reset();
    blocks = [];
    collections = [];
  });
}
