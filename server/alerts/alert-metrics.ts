import { metricCatalog } from '../metrics/metric-catalog.js';
import type { SampleRow } from '../metrics/samples-repository.js';

/** Ratio of connections in use to the server's limit, 0..100. */
export const usedPctMetric = 'connections.used_pct';
/** 1 while the database answers the agent, 0 when a collection failed or samples stopped arriving. */
export const reachableMetric = 'reachable';

/** What an alert rule may watch: every snapshot metric path, the connection ratio and reachability. */
export const alertMetrics: readonly string[] = [...metricCatalog.map((metric) => metric.path), usedPctMetric, reachableMetric];

const columnOf = new Map(metricCatalog.map((metric) => [metric.path, metric.column as keyof SampleRow]));

/** The value of `metric` in one stored sample; null when the sample does not have it (a failed collection, say). */
export function metricValue(sample: SampleRow, metric: string): number | null {
  if (metric === reachableMetric) return sample.reachable;
  if (metric === usedPctMetric) {
    const { connections_total: total, connections_max: max } = sample;
    return total === null || max === null || max <= 0 ? null : (total / max) * 100;
  }
  const column = columnOf.get(metric);
  if (column === undefined) return null;
  const value = sample[column];
  return typeof value === 'number' ? value : null;
}
