import { z } from 'zod';
import type { MetricCatalog, SnapshotMetricFields } from '../../common/metric-catalog.js';
import { databaseTypes } from '../databases/databases-schema.js';
import { snapshotMetricsShape } from '../metrics/catalog-schemas.js';

// Snapshot internals are parsed leniently (unknown keys dropped) so an agent one version ahead
// still delivers; the batch envelope itself is strict.
const snapshotEnvelope = {
  timestamp: z.iso.datetime({ offset: true }),
  reachable: z.boolean(),
  error: z.string().max(2000).optional(),
  error_code: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,63}$/)
    .optional()
    .describe('With an unreachable snapshot: why, as a stable code (see Database.last_error.code)'),
  version: z.string().max(200).nullable(),
  counters: z.record(z.string().max(200), z.number()),
  collectors: z
    .array(z.object({ name: z.string().max(100), duration_ms: z.number().min(0), success: z.boolean(), error: z.string().max(2000).optional() }))
    .max(100),
  statements: z
    .array(
      z.object({
        query_id_source: z.string().max(200),
        query: z.string().max(100_000),
        calls: z.number().min(0),
        total_time_ms: z.number().min(0),
        max_time_ms: z.number().min(0).nullable(),
        rows: z.number().min(0),
      }),
    )
    .max(5000)
    .optional(),
};

export type IngestSnapshot = z.output<z.ZodObject<typeof snapshotEnvelope>> &
  SnapshotMetricFields & { metrics: { latency: { source: 'histogram' | 'estimate' | null; note?: string | undefined } } };

const batchEnvelope = {
  batch_id: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, '16 to 64 characters of A-Z a-z 0-9 _ -'),
  spool_dropped_total: z.number().int().min(0).optional().describe("Samples the agent's spool has dropped at its cap, cumulative"),
};

export type SampleBatch = z.output<z.ZodObject<typeof batchEnvelope>> & { samples: { database_id: string; snapshot: IngestSnapshot }[] };

/** `POST /v1/agent/samples`'s body, its snapshots carrying the catalog's metrics. */
export function sampleBatchSchema(catalog: MetricCatalog): z.ZodType<SampleBatch> {
  const snapshot = z.object({ ...snapshotEnvelope, ...snapshotMetricsShape(catalog) }).meta({ id: 'Snapshot' });
  const batch = z
    .strictObject({ ...batchEnvelope, samples: z.array(z.strictObject({ database_id: z.string(), snapshot })).min(1).max(500) })
    .meta({ id: 'SampleBatch' });
  // The catalog is a value, so zod cannot infer the metrics' types; the real catalog's are SnapshotMetricFields.
  return batch as unknown as z.ZodType<SampleBatch>;
}

export const ingestResult = z
  .object({ batch_id: z.string(), stored: z.number().int(), duplicate: z.boolean(), rejected: z.number().int() })
  .meta({ id: 'IngestResult' });

/** A database's connection settings as an agent receives them: the password decrypted. */
export const agentConnection = z.object({
  host: z.string(),
  port: z.number().int(),
  database: z.string(),
  username: z.string(),
  password: z.string().nullable(),
  ssl: z.boolean(),
});

export const assignments = z
  .object({
    agent_id: z.string().nullable(),
    databases: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        type: z.enum(databaseTypes),
        interval_seconds: z.number().int(),
        connection: agentConnection,
      }),
    ),
  })
  .meta({ id: 'AgentAssignments' });

export type Assignments = z.output<typeof assignments>;
