import { readFile, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import type { Collector, CpuTimes } from '../collector.js';

export interface HostCollectorOptions {
  /** Where procfs is mounted: /proc, or a fixture directory in tests. */
  procRoot: string;
  /** A path on the file system whose usage is reported (the data directory, else /). */
  diskPath: string;
}

/**
 * CPU, memory and disk usage of the host the agent runs on. CPU usage needs two readings of
 * the cumulative jiffies, so this reports the jiffies and the runner computes the percentage
 * over the interval.
 */
export function createHostCollector(options: HostCollectorOptions): Collector<unknown> {
  return {
    name: 'host',
    async collect(_source, { signal }) {
      const [stat, meminfo, disk] = await Promise.all([
        readFile(join(options.procRoot, 'stat'), { encoding: 'utf8', signal }),
        readFile(join(options.procRoot, 'meminfo'), { encoding: 'utf8', signal }),
        statfs(options.diskPath),
      ]);
      const used = disk.blocks - disk.bfree;
      return {
        values: {
          memory_usage: memoryUsagePercent(meminfo),
          // As df computes it: blocks reserved for root count as neither used nor available.
          disk_usage: (used / (used + disk.bavail)) * 100,
        },
        readings: { cpu: cpuTimes(stat) },
      };
    },
  };
}

/** The aggregate line: user nice system idle iowait irq softirq steal (guest time is already in user). */
function cpuTimes(stat: string): CpuTimes {
  const line = stat.split('\n').find((candidate) => candidate.startsWith('cpu '));
  if (line === undefined) throw new Error('no aggregate cpu line in stat');
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (fields.length < 4 || fields.some((field) => !Number.isFinite(field))) {
    throw new Error(`unreadable cpu line in stat: ${line}`);
  }
  const total = fields.reduce((sum, field) => sum + field, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

function memoryUsagePercent(meminfo: string): number {
  const kib = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(meminfo);
    if (match?.[1] === undefined) throw new Error(`no ${name} in meminfo`);
    return Number(match[1]);
  };
  const total = kib('MemTotal');
  return ((total - kib('MemAvailable')) / total) * 100;
}
