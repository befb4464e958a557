import { metricCatalog, type MetricColumns } from '../../common/metric-catalog.js';

/** What evaluation reads of a stored sample (the metrics feature stores more). */
export type EvaluatedSample = MetricColumns & { ts: number; reachable: number };

/** Ratio of connections in use to the server's limit, 0..100. */
export const usedPctMetric = 'connections.used_pct';
/** 1 while the database answers the agent, 0 when a collection failed or samples stopped arriving. */
export const reachableMetric = 'reachable';

/** The database status as derived from reachability and the alerts of metric rules (status rules' own alerts left out). */
export const statusMetric = 'status';

/**
 * The values a status rule compares with. Stored in the numeric threshold and value columns as
 * their index here: append only, never reorder.
 */
export const statusValues = ['healthy', 'warning', 'critical', 'unreachable', 'paused', 'pending'] as const;
export type StatusValue = (typeof statusValues)[number];

/** What an alert rule may watch: every snapshot metric path, the connection ratio, reachability and the status. */
export const alertMetrics: readonly string[] = [...metricCatalog.map((metric) => metric.path), usedPctMetric, reachableMetric, statusMetric];

/** A stored threshold or value as the API shows it: the status name for a status rule, else the number. */
export function presentMetricValue(metric: string, value: number): number | StatusValue {
  return metric === statusMetric ? statusValues[value]! : value;
}

const columnOf = new Map<string, keyof EvaluatedSample>(metricCatalog.map((metric) => [metric.path, metric.column as keyof EvaluatedSample]));

/** The value of `metric` in one stored sample; null when the sample does not have it (a failed collection, say). */
export function metricValue(sample: EvaluatedSample, metric: string): number | null {
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
