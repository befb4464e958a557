import { metricCatalog, type MetricColumns, type MetricDefinition } from '../../common/metric-catalog.js';

/** What evaluation reads of a stored sample: its time, reachability, and the values of the metrics its rules watch. */
export type EvaluatedSample = Partial<MetricColumns> & { ts: number; reachable: number };

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

const definitionOf = new Map<string, MetricDefinition>(metricCatalog.map((metric) => [metric.path, metric]));
const usedPctMetrics = [definitionOf.get('connections.total')!, definitionOf.get('connections.max')!];

/** The value of `metric` in one stored sample; null when the sample does not have it (a failed collection, say). */
export function metricValue(sample: EvaluatedSample, metric: string): number | null {
  if (metric === reachableMetric) return sample.reachable;
  if (metric === usedPctMetric) {
    const { connections_total: total, connections_max: max } = sample;
    return typeof total !== 'number' || typeof max !== 'number' || max <= 0 ? null : (total / max) * 100;
  }
  const column = definitionOf.get(metric)?.column;
  const value = column === undefined ? undefined : sample[column as keyof EvaluatedSample];
  return typeof value === 'number' ? value : null;
}

/**
 * The catalog metrics whose stored values rules on these metrics read, each once, in catalog
 * order; reachability and the status need none beyond what every sample has.
 */
export function storedMetricsOf(metrics: Iterable<string>): MetricDefinition[] {
  const read = new Set<MetricDefinition>();
  for (const metric of metrics) {
    if (metric === usedPctMetric) usedPctMetrics.forEach((definition) => read.add(definition));
    const definition = definitionOf.get(metric);
    if (definition !== undefined) read.add(definition);
  }
  return metricCatalog.filter((definition) => read.has(definition));
}
