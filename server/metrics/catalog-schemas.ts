import { z } from 'zod';
import { nestValues, type MetricCatalog, type MetricDefinition } from '../../common/metric-catalog.js';

const latencySource = z.enum(['histogram', 'estimate']).nullable();

/** The metric fields of the snapshot an agent sends, each at its place, as a zod object shape. */
export function snapshotMetricsShape(catalog: MetricCatalog): z.ZodRawShape {
  return nestedShape([
    ...catalog.map((metric) => [metric.snapshot, ingestedValue(metric)] as const),
    ['metrics.latency.source', latencySource],
    [
      'metrics.latency.note',
      z
        .string()
        .max(2000)
        .optional()
        .describe(
          'Why there is no latency, given with `source: null`: e.g. "pg_stat_statements is not installed in this database ...", ' +
            '"pg_stat_statements has no statements for this database yet", "no statement ran in the interval"',
        ),
    ],
  ]);
}

/** The `metrics` object of the API snapshot: the catalog's metrics shown there, at their paths. */
export function apiSnapshotMetrics(catalog: MetricCatalog): z.ZodObject {
  return z.object(
    nestedShape([
      ...catalog.filter((metric) => metric.api).map((metric) => [metric.path, z.number().nullable().describe(metric.help)] as const),
      [
        'latency.source',
        latencySource.describe(
          'How the latencies of the range were obtained: `histogram` when every interval in the range that has a latency ' +
            'took it from a latency histogram, otherwise `estimate` (from per-statement means and deviations). ' +
            'Latencies are those of the database alone: PostgreSQL estimates from pg_stat_statements; MySQL 8.0.19+ sums the ' +
            "schema's events_statements_histogram_by_digest; MariaDB, whose QUERY_RESPONSE_TIME histogram is server-wide, " +
            "estimates from the schema's statement digests, each taken at its mean. " +
            'Null exactly when the latencies are null: no statement ran in the range, or the engine keeps no statement ' +
            'statistics for the database (the agent snapshot says which in `latency.note`).',
        ),
      ],
    ]),
  );
}

/** What an agent may send for a metric: never negative, an integer where counted, at most 100 where a percentage. */
function ingestedValue(metric: MetricDefinition): z.ZodType {
  const number = metric.precision === 'integer' ? z.number().int().min(0) : z.number().min(0);
  return (metric.unit === 'percent' ? number.max(100) : number).nullable();
}

type Node = { [key: string]: Node | z.ZodType };

/** Dotted places and their schemas as nested objects: `a.b` and `a.c` give `{ a: { b, c } }`. */
function nestedShape(entries: readonly (readonly [string, z.ZodType])[]): z.ZodRawShape {
  return shapeOf(nestValues(entries) as Node);
}

function shapeOf(node: Node): z.ZodRawShape {
  return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, child instanceof z.ZodType ? child : z.object(shapeOf(child))]));
}
