import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import t from 'tap';
import { createHostCollector } from '../../../../agent/collection/collectors/host.js';
import { intervalMetrics } from '../../../../agent/collection/interval-metrics.js';

const fixtures = fileURLToPath(new URL('../../../fixtures/proc/', import.meta.url));
const ctx = { signal: AbortSignal.timeout(5000), now: new Date(), logger: pino({ level: 'silent' }) };

t.test('memory and CPU from two procfs readings', async (t) => {
  const first = await createHostCollector({ procRoot: `${fixtures}first`, diskPath: fixtures }).collect(null, ctx);
  const second = await createHostCollector({ procRoot: `${fixtures}second`, diskPath: fixtures }).collect(null, ctx);
  t.equal(first.values?.memory_usage, 25, 'MemTotal 16 GB with 12 GB available');
  t.equal(second.values?.memory_usage, 75);
  t.same(first.readings?.cpu, { busy: 14_000, total: 95_000 }, 'idle and iowait are not busy; guest is inside user');
  const metrics = intervalMetrics(
    { atMs: 0, readings: first.readings ?? {} },
    { atMs: 10_000, readings: second.readings ?? {} },
  );
  t.equal(metrics.cpuUsage, 50, '1000 busy of 2000 jiffies');
});

t.test('disk usage of the file system holding the path, as df computes it', async (t) => {
  const diskUsage = (await createHostCollector({ procRoot: `${fixtures}first`, diskPath: fixtures }).collect(null, ctx)).values?.disk_usage;
  const dataLine = execFileSync('df', ['-P', '-k', fixtures], { encoding: 'utf8' }).trim().split('\n')[1] ?? '';
  const [, , used = NaN, available = NaN] = dataLine.trim().split(/\s+/).map(Number);
  const expected = (used / (used + available)) * 100;
  t.ok(Math.abs((diskUsage ?? NaN) - expected) < 1, `${diskUsage} close to df's ${expected}`);
});

t.test('a procfs without the files fails the collector', async (t) => {
  await t.rejects(createHostCollector({ procRoot: `${fixtures}missing`, diskPath: fixtures }).collect(null, ctx));
});
