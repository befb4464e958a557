import type { MetricDefinition } from '../../common/metric-catalog.js';

/** A rollup's `<column>_avg|_min|_max|_count` columns of these metrics. */
export function rollupColumns(metrics: readonly MetricDefinition[]): string[] {
  return metrics.flatMap((metric) => ['avg', 'min', 'max', 'count'].map((stat) => `${metric.column}_${stat}`));
}
