import { z } from 'zod';
import { databaseTypes } from '../databases/databases-schema.js';

const percent = z.number().min(0).max(100).nullable();
const count = z.number().int().min(0).nullable();
const nonNegative = z.number().min(0).nullable();

// Snapshot internals are parsed leniently (unknown keys dropped) so an agent one version ahead
// still delivers; the batch envelope itself is strict.
export const snapshotSchema = z
  .object({
    timestamp: z.iso.datetime({ offset: true }),
    reachable: z.boolean(),
    error: z.string().max(2000).optional(),
    error_code: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,63}$/)
      .optional()
      .describe('With an unreachable snapshot: why, as a stable code (see Database.last_error.code)'),
    version: z.string().max(200).nullable(),
    database_size_bytes: nonNegative,
    metrics: z.object({
      cpu_usage: percent,
      memory_usage: percent,
      disk_usage: percent,
      connections: z.object({ active: count, idle: count, total: count, max: count }),
      throughput: z.object({ queries_per_second: nonNegative, transactions_per_second: nonNegative }),
      latency: z.object({
        avg_query_time_ms: nonNegative,
        p95_query_time_ms: nonNegative,
        p99_query_time_ms: nonNegative,
        source: z.enum(['histogram', 'estimate']).nullable(),
        note: z
          .string()
          .max(2000)
          .optional()
          .describe(
            'Why there is no latency, given with `source: null`: e.g. "pg_stat_statements is not installed in this database ...", ' +
              '"pg_stat_statements has no statements for this database yet", "no statement ran in the interval"',
          ),
      }),
    }),
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
  })
  .meta({ id: 'Snapshot' });

export type IngestSnapshot = z.output<typeof snapshotSchema>;

export const sampleBatchBody = z
  .strictObject({
    batch_id: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, '16 to 64 characters of A-Z a-z 0-9 _ -'),
    spool_dropped_total: z.number().int().min(0).optional().describe("Samples the agent's spool has dropped at its cap, cumulative"),
    samples: z.array(z.strictObject({ database_id: z.string(), snapshot: snapshotSchema })).min(1).max(500),
  })
  .meta({ id: 'SampleBatch' });

export type SampleBatch = z.output<typeof sampleBatchBody>;

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
