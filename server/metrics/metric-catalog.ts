/** How a metric combines over a range: gauges report the latest value, rates and latencies the range. */
export type MetricKind = 'gauge' | 'rate' | 'latency';

export interface MetricDefinition {
  /** Path in the snapshot's `metrics` object, as used by `?metrics=` and alert rules. */
  path: string;
  /** Column in `samples`; `<column>_avg|_min|_max` in `sample_rollups`. */
  column: string;
  kind: MetricKind;
}

export const metricCatalog: readonly MetricDefinition[] = [
  { path: 'cpu_usage', column: 'cpu_usage', kind: 'gauge' },
  { path: 'memory_usage', column: 'memory_usage', kind: 'gauge' },
  { path: 'disk_usage', column: 'disk_usage', kind: 'gauge' },
  { path: 'connections.active', column: 'connections_active', kind: 'gauge' },
  { path: 'connections.idle', column: 'connections_idle', kind: 'gauge' },
  { path: 'connections.total', column: 'connections_total', kind: 'gauge' },
  { path: 'connections.max', column: 'connections_max', kind: 'gauge' },
  { path: 'throughput.queries_per_second', column: 'queries_per_second', kind: 'rate' },
  { path: 'throughput.transactions_per_second', column: 'transactions_per_second', kind: 'rate' },
  { path: 'latency.avg_query_time_ms', column: 'avg_query_time_ms', kind: 'latency' },
  { path: 'latency.p95_query_time_ms', column: 'p95_query_time_ms', kind: 'latency' },
  { path: 'latency.p99_query_time_ms', column: 'p99_query_time_ms', kind: 'latency' },
  { path: 'database_size_bytes', column: 'database_size_bytes', kind: 'gauge' },
];

export const metricPaths = metricCatalog.map((metric) => metric.path);

export function metricByPath(path: string): MetricDefinition | undefined {
  return metricCatalog.find((metric) => metric.path === path);
}
