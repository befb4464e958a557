// Loaded into the server by bench/fleet-live.js with `node --import`: watches the main thread's
// event loop (perf_hooks.monitorEventLoopDelay, 1 ms resolution). On SIGUSR2 it writes what it saw
// since the previous SIGUSR2 (or its start) as one JSON line to the file named by
// DBMON_BENCH_LOOP_FILE, in milliseconds, and starts a new window.
import { renameSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.DBMON_BENCH_LOOP_FILE;
if (file) {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  let window = 0;
  process.on('SIGUSR2', () => {
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    const [p50, p99, p999] = [50, 99, 99.9].map((percentile) => ms(delay.percentile(percentile)));
    // Written aside and renamed, so that the bench never reads half a line.
    writeFileSync(`${file}.part`, JSON.stringify({ window: ++window, max: ms(delay.max), p50, p99, p999, count: delay.count }));
    renameSync(`${file}.part`, file);
    delay.reset();
  });
}
