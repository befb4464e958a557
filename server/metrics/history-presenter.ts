import { Buffer } from 'node:buffer';
import type { HistoryResolution, MetricDefinition } from '../../common/metric-catalog.js';
import { IsoTimestamps } from './iso-timestamps.js';
import type { SeriesRow } from './sample-store.js';

/** A history answer before it is presented: the span, the resolution, the metrics asked for and the rows read. */
export interface History {
  database_id: string;
  from: string;
  to: string;
  resolution: HistoryResolution;
  metrics: readonly MetricDefinition[];
  /** `ts` and, per metric kept at the resolution, its column (raw) or `<column>_avg|_min|_max` (rollups). */
  rows: readonly SeriesRow[];
}

/**
 * The MetricsHistory body as UTF-8 JSON: `{database_id, from, to, resolution, data: [{timestamp,
 * metrics: {<path>: value or {avg, min, max}}}]}`, a metric the rows lack a column of as null.
 * JSON.stringify writes it: its numbers cost less than String()'s (no string per number); the
 * points' keys are put together once per answer, not once per row and metric.
 */
export function historyBody({ database_id, from, to, resolution, metrics, rows }: History): Buffer {
  const rolled = resolution !== 'raw';
  const fields = metrics.map(({ path, column }) => ({ path, column, avg: `${column}_avg`, min: `${column}_min`, max: `${column}_max` }));
  const timestamps = new IsoTimestamps();
  const data = rows.map((row) => {
    const values: Record<string, number | null | { avg: number | null; min: number | null; max: number | null }> = {};
    for (const field of fields) {
      values[field.path] = rolled ? { avg: row[field.avg] ?? null, min: row[field.min] ?? null, max: row[field.max] ?? null } : (row[field.column] ?? null);
    }
    return { timestamp: timestamps.of(row.ts!), metrics: values };
  });
  return Buffer.from(JSON.stringify({ database_id, from, to, resolution, data }));
}
