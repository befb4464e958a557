import { z } from 'zod';
import type { MetricCatalog } from '../metric-catalog.js';
import { batchIdLength, maxBatchSamples, maxSpoolAgeSeconds } from './limits.js';
import { snapshotSchema, type Snapshot } from './snapshot.js';

/** A batch's id, chosen by the agent: the server stores a batch id once, so a resent batch is never stored twice. */
export const batchId = z
  .string()
  .regex(
    new RegExp(`^[A-Za-z0-9_-]{${batchIdLength.min},${batchIdLength.max}}$`),
    `${batchIdLength.min} to ${batchIdLength.max} characters of A-Z a-z 0-9 _ -`,
  );

const batchEnvelope = {
  batch_id: batchId,
  spool_dropped_total: z.number().int().min(0).optional().describe("Samples the agent's spool has dropped at its cap, cumulative"),
  spool_batches: z.number().int().min(0).optional().describe("Batches in the agent's spool besides this one, still to be sent"),
  spool_oldest_batch_age_seconds: z
    .number()
    .min(0)
    .max(maxSpoolAgeSeconds)
    .optional()
    .describe("Age of the oldest of those batches, in seconds by the agent's clock; 0 when there is none"),
};

const sampleEnvelope = { database_id: z.string() };

/** One database's snapshot of one cycle. */
export type Sample = z.output<z.ZodObject<typeof sampleEnvelope>> & { snapshot: Snapshot };

/** The body of `POST /v1/agent/samples`. */
export type SampleBatch = z.output<z.ZodObject<typeof batchEnvelope>> & { samples: Sample[] };

/** `POST /v1/agent/samples`'s body, its snapshots carrying the catalog's metrics. */
export function sampleBatchSchema(catalog: MetricCatalog): z.ZodType<SampleBatch> {
  const sample = z.strictObject({ ...sampleEnvelope, snapshot: snapshotSchema(catalog) });
  const batch = z.strictObject({ ...batchEnvelope, samples: z.array(sample).min(1).max(maxBatchSamples) }).meta({ id: 'SampleBatch' });
  // The catalog is a value, so zod cannot infer the metrics' types; the real catalog's are SnapshotMetricFields.
  return batch as unknown as z.ZodType<SampleBatch>;
}

/** The server's answer to a batch it took: stored once, or recognised as a retry (duplicate). */
export const batchAck = z
  .object({ batch_id: z.string(), stored: z.number().int().min(0), duplicate: z.boolean(), rejected: z.number().int().min(0) })
  .meta({ id: 'IngestResult' });
export type BatchAck = z.output<typeof batchAck>;
