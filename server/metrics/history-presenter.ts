import { Buffer } from 'node:buffer';
import type { HistoryResolution, MetricDefinition } from '../../common/metric-catalog.js';
import { IsoTimestamps } from './iso-timestamps.js';
import type { SeriesRow } from './samples-repository.js';

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
 * The MetricsHistory body as UTF-8 JSON, written directly from the rows: the bytes JSON.stringify
 * gives for `{database_id, from, to, resolution, data: [{timestamp, metrics: {<path>: value or
 * {avg, min, max}}}]}`, without building that object first (its points and their serialisation
 * were most of a history read's CPU). A metric the rows lack a column of reads as null.
 */
export function historyBody({ database_id, from, to, resolution, metrics, rows }: History): Buffer {
  const rolled = resolution !== 'raw';
  const fields = metrics.map(({ path, column }, index) => ({
    key: `${index === 0 ? '' : ','}${JSON.stringify(path)}:`,
    column,
    avg: `${column}_avg`,
    min: `${column}_min`,
    max: `${column}_max`,
  }));
  const timestamps = new IsoTimestamps();
  let json = `{"database_id":${JSON.stringify(database_id)},"from":${JSON.stringify(from)},"to":${JSON.stringify(to)},"resolution":${JSON.stringify(resolution)},"data":[`;
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index]!;
    json += `${index === 0 ? '' : ','}{"timestamp":"${timestamps.of(row.ts!)}","metrics":{`;
    for (const field of fields) {
      json += rolled
        ? `${field.key}{"avg":${numberText(row[field.avg])},"min":${numberText(row[field.min])},"max":${numberText(row[field.max])}}`
        : `${field.key}${numberText(row[field.column])}`;
    }
    json += '}}';
  }
  return Buffer.from(`${json}]}`);
}

/** A value as JSON.stringify writes it (null for a missing or non-finite one). */
function numberText(value: number | null | undefined): string {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : 'null';
}
