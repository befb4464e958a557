// Loaded into the agent by bench/collect.js with `node --import`: once a second, writes the
// process's V8 heap figures as one JSON line to the file named by DBMON_BENCH_MEMORY_FILE
// (overwritten each time), so the bench can read them beside VmRSS. Its timer does not keep the
// agent alive.
import { writeFileSync } from 'node:fs';
import { setInterval } from 'node:timers';

const file = process.env.DBMON_BENCH_MEMORY_FILE;
if (file) {
  setInterval(() => {
    const { heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
    writeFileSync(file, JSON.stringify({ heapUsed, heapTotal, external, arrayBuffers }));
  }, 1000).unref();
}
