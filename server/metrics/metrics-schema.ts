import { z } from 'zod';
import { parseDuration } from '../../common/duration.js';
import { metricPaths } from './metric-catalog.js';

export const resolutions = ['raw', '1m', '5m', '1h', '1d', 'auto'] as const;
export type Resolution = (typeof resolutions)[number];

const minRangeMs = 60_000;
const maxRangeMs = 30 * 86_400_000;

const range = z
  .string()
  .transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === undefined || ms < minRangeMs || ms > maxRangeMs) {
      ctx.addIssue({ code: 'custom', message: 'must be <n>(s|m|h|d) between 1m and 30d' });
      return z.NEVER;
    }
    return { text, ms };
  })
  .describe('Duration <n>(s|m|h|d), 1m..30d');

export type Range = { text: string; ms: number };

/** The `range` query parameter (1m..30d), for the other features' endpoints; each sets its own default. */
export const rangeParam = range;

export const currentMetricsQuery = z.strictObject({ range: range.prefault('5m').describe('Duration <n>(s|m|h|d), 1m..30d; default 5m') });

export const historyQuery = z.strictObject({
  metrics: z
    .string()
    .transform((text, ctx) => {
      const names = text.split(',').map((name) => name.trim()).filter(Boolean);
      const unknown = names.find((name) => !metricPaths.includes(name));
      if (names.length === 0 || unknown !== undefined) {
        ctx.addIssue({ code: 'custom', message: `unknown metric ${unknown ?? '(none)'}; known: ${metricPaths.join(', ')}` });
        return z.NEVER;
      }
      return [...new Set(names)];
    })
    .optional()
    .describe(`Comma-separated metric paths (default: all): ${metricPaths.join(', ')}`),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  range: range.optional().describe('Span ending at `to` when `from` is absent (default 1h)'),
  resolution: z.enum(resolutions).default('auto'),
});

export type HistoryQuery = z.output<typeof historyQuery>;

const nullableNumber = z.number().nullable();

export const metricsSnapshot = z
  .object({
    database_id: z.string(),
    timestamp: z.string().nullable(),
    range: z.string(),
    status: z.string(),
    metrics: z.object({
      cpu_usage: nullableNumber,
      memory_usage: nullableNumber,
      disk_usage: nullableNumber,
      connections: z.object({ active: nullableNumber, idle: nullableNumber, total: nullableNumber, max: nullableNumber }),
      throughput: z.object({
        queries_per_second: nullableNumber.describe(
          "Statements per second run in this database, the agent's own left out. PostgreSQL: pg_stat_statements calls of " +
            'the database. MySQL/MariaDB: performance_schema statement digests of the schema (statements run while it was ' +
            "the session's default schema), requests for a plan (EXPLAIN, DESCRIBE) left out; the server-wide counters " +
            '(mysql_global_status_questions ...) are on /metrics.',
        ),
        transactions_per_second: nullableNumber.describe(
          'Transactions per second ended in this database. PostgreSQL: xact_commit + xact_rollback of pg_stat_database, ' +
            'autocommitted statements included. MySQL/MariaDB: statements that end a transaction explicitly (COMMIT, ROLLBACK, ' +
            "XA COMMIT, XA ROLLBACK) among the schema's statement digests; the engine counts no transactions per schema, so " +
            'autocommitted statements (each a transaction of its own) are not counted. Server-wide: ' +
            'mysql_global_status_com_commit and _com_rollback on /metrics.',
        ),
      }),
      latency: z.object({
        avg_query_time_ms: nullableNumber,
        p95_query_time_ms: nullableNumber,
        p99_query_time_ms: nullableNumber,
        source: z
          .enum(['histogram', 'estimate'])
          .nullable()
          .describe(
            'How the latencies of the range were obtained: `histogram` when every interval in the range that has a latency ' +
              'took it from a latency histogram, otherwise `estimate` (from per-statement means and deviations). ' +
              'Latencies are those of the database alone: PostgreSQL estimates from pg_stat_statements; MySQL 8.0.19+ sums the ' +
              "schema's events_statements_histogram_by_digest; MariaDB, whose QUERY_RESPONSE_TIME histogram is server-wide, " +
              "estimates from the schema's statement digests, each taken at its mean. " +
              'Null exactly when the latencies are null: no statement ran in the range, or the engine keeps no statement ' +
              'statistics for the database (the agent snapshot says which in `latency.note`).',
          ),
      }),
    }),
  })
  .meta({ id: 'MetricsSnapshot' });

const rolledValue = z.object({ avg: nullableNumber, min: nullableNumber, max: nullableNumber });

export const metricsHistory = z
  .object({
    database_id: z.string(),
    from: z.string(),
    to: z.string(),
    resolution: z.enum(['raw', '1m', '5m', '1h', '1d']),
    data: z.array(
      z.object({
        timestamp: z.string(),
        metrics: z.record(z.string(), z.union([nullableNumber, rolledValue])).describe('raw: numbers; rollups: {avg, min, max}'),
      }),
    ),
  })
  .meta({ id: 'MetricsHistory' });
