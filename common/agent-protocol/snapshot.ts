import { z } from 'zod';
import type { MetricCatalog, MetricDefinition, SnapshotMetricFields } from '../metric-catalog.js';
import { nestedShape } from '../nested-shape.js';
import { collectionErrorCodeFormat } from './error-codes.js';
import { maxCounterKeyLength, maxErrorLength, maxQueryLength, maxStatementsPerSnapshot } from './limits.js';

/** How a snapshot's latencies were obtained; null when it has none. */
export const latencySource = z.enum(['histogram', 'estimate']).nullable();
export type LatencySource = NonNullable<z.output<typeof latencySource>>;

const latencyNote = z
  .string()
  .max(maxErrorLength)
  .optional()
  .describe(
    'Why there is no latency, given with `source: null`: e.g. "pg_stat_statements is not installed in this database ...", ' +
      '"pg_stat_statements has no statements for this database yet", "no statement ran in the interval"',
  );

/** How one collector fared in a cycle. */
export const collectorOutcome = z.object({
  name: z.string().max(100),
  duration_ms: z.number().min(0),
  success: z.boolean(),
  error: z.string().max(maxErrorLength).optional(),
});
export type CollectorOutcome = z.output<typeof collectorOutcome>;

/** One statement's deltas over the interval a snapshot ends. */
export const statementStats = z.object({
  query_id_source: z.string().max(200),
  query: z.string().max(maxQueryLength),
  calls: z.number().min(0),
  total_time_ms: z.number().min(0),
  max_time_ms: z.number().min(0).nullable(),
  rows: z.number().min(0),
});
export type StatementStats = z.output<typeof statementStats>;

// Snapshot internals are parsed leniently (unknown keys dropped) so an agent one version ahead
// still delivers; the batch envelope itself is strict.
const snapshotEnvelope = {
  // When the rate counters were read (the cycle's start if none were): a rate is over the time between two samples'.
  timestamp: z.iso.datetime({ offset: true }),
  reachable: z.boolean(),
  error: z.string().max(maxErrorLength).optional(),
  error_code: collectionErrorCodeFormat.optional().describe('With an unreachable snapshot: why, as a stable code (see Database.last_error.code)'),
  version: z.string().max(200).nullable(),
  /** Raw cumulative engine counters, named like postgres_exporter / mysqld_exporter. */
  counters: z.record(z.string().max(maxCounterKeyLength), z.number()),
  collectors: z.array(collectorOutcome).max(100),
  /** Per-interval deltas; absent when no interval could be measured (first cycle, no statistics). */
  statements: z.array(statementStats).max(maxStatementsPerSnapshot).optional(),
};

/** How the latency metrics were obtained, and why there are none. */
const latencyQualifiers = { source: latencySource, note: latencyNote };
export type LatencyQualifiers = z.output<z.ZodObject<typeof latencyQualifiers>>;

/**
 * The snapshot one collection cycle produces for one database. Each catalog metric sits at its
 * `snapshot` place (under `metrics`, or at the top level); the catalog is a value, so the metric
 * fields' type comes from the real catalog's type rather than from the schema.
 */
export type Snapshot = z.output<z.ZodObject<typeof snapshotEnvelope>> & SnapshotMetricFields & { metrics: { latency: LatencyQualifiers } };

/** The schema of a snapshot carrying a catalog's metrics. */
export function snapshotSchema(catalog: MetricCatalog): z.ZodObject {
  return z
    .object({
      ...snapshotEnvelope,
      ...nestedShape([
        ...catalog.map((metric) => [metric.snapshot, ingestedValue(metric)] as const),
        ['metrics.latency.source', latencyQualifiers.source],
        ['metrics.latency.note', latencyQualifiers.note],
      ]),
    })
    .meta({ id: 'Snapshot' });
}

/**
 * What an agent may send for a metric: never negative, an integer where counted, at most 100 where
 * a percentage; nothing at all from agents older than the metric.
 */
function ingestedValue(metric: MetricDefinition): z.ZodType {
  const number = metric.precision === 'integer' ? z.number().int().min(0) : z.number().min(0);
  const value = (metric.unit === 'percent' ? number.max(100) : number).nullable();
  return metric.optionalOnIngest ? value.optional() : value;
}
