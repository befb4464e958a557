import { z } from 'zod';
import { connectionSchema, databaseTypeSchema } from '../assignments/assignment.js';

/** What applying needs; the agent builds the SQL from these itself and never runs SQL text it is sent. */
export const indexTargetSchema = z.object({
  schema: z.string().min(1).max(128),
  table: z.string().min(1).max(128),
  index_name: z.string().min(1).max(128),
  columns: z.array(z.string().min(1).max(128)).max(16),
});
export type IndexTarget = z.output<typeof indexTargetSchema>;

const jobDatabaseSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: databaseTypeSchema,
  connection: connectionSchema,
});
export type JobDatabase = z.output<typeof jobDatabaseSchema>;

export const analyzeStatementSchema = z.object({
  query_id: z.string(),
  query: z.string(),
  calls: z.number(),
  total_time_ms: z.number(),
  mean_time_ms: z.number(),
});
export type AnalyzeStatement = z.output<typeof analyzeStatementSchema>;

export const suggestionKinds = ['create_index', 'drop_index'] as const;

/** One job of `GET /v1/agent/jobs`. */
export const agentJobSchema = z.discriminatedUnion('kind', [
  z.object({
    id: z.string(),
    kind: z.literal('analyze'),
    optimization_id: z.string(),
    database: jobDatabaseSchema,
    statements: z.array(analyzeStatementSchema),
  }),
  z.object({
    id: z.string(),
    kind: z.literal('apply'),
    optimization_id: z.string(),
    database: jobDatabaseSchema,
    apply: z.object({ kind: z.enum(suggestionKinds), target: indexTargetSchema, query: z.string().nullable() }),
  }),
]);
export type AgentJob = z.output<typeof agentJobSchema>;
export type AnalyzeJob = Extract<AgentJob, { kind: 'analyze' }>;
export type ApplyJob = Extract<AgentJob, { kind: 'apply' }>;

export type Confidence = 'high' | 'medium' | 'low';

export interface Suggestion {
  kind: (typeof suggestionKinds)[number];
  query_id: string | null;
  summary: string;
  /** The exact SQL that applying runs. */
  statement: string;
  target: IndexTarget;
  estimated_improvement_pct: number | null;
  cost_before: number | null;
  cost_after: number | null;
  confidence: Confidence;
  evidence: Record<string, unknown>;
}

export type StatementOutcome = 'suggestion' | 'no_suggestion' | 'refused' | 'failed';

export interface StatementAnalysis {
  query_id: string;
  outcome: StatementOutcome;
  detail: string;
}

/** The body of `POST /v1/agent/jobs/{id}/result`. */
export type JobResult =
  | { kind: 'analyze'; outcome: 'completed' | 'failed'; error?: string; statements: StatementAnalysis[]; suggestions: Suggestion[] }
  | { kind: 'apply'; outcome: 'applied' | 'failed'; error?: string; cost_after_apply: number | null; evidence?: Record<string, unknown> };

export interface AdvisorOptions {
  /** A suggestion is kept only when it lowers the cost by at least this much. */
  minImprovementPct: number;
  /** Statement timeout of the analysis statements. */
  analysisTimeoutMs: number;
  /**
   * How long analysis (both engines) and MySQL/MariaDB's ALTER TABLE wait for a lock before giving
   * up: a waiting ALTER's metadata lock request holds up the application's statements on that table.
   */
  lockTimeoutMs: number;
  /**
   * lock_timeout of PostgreSQL's CREATE/DROP INDEX CONCURRENTLY. Its waits (for the lock, and for
   * older transactions to end) never block the application, so it may wait longer.
   */
  concurrentIndexLockTimeoutMs: number;
  /** Statement timeout of an index build; 0 for none. */
  applyTimeoutMs: number;
  connectTimeoutMs: number;
  /** auto: use hypopg if installed, else create it inside the analysis transaction (rolled back); installed: only if installed; never: heuristic only. */
  hypopg: 'auto' | 'installed' | 'never';
  /** Tables smaller than this are not worth an index suggestion from a heuristic. */
  minTableRows: number;
  /** Heuristic: a sequential scan keeping at most this fraction of the table's rows is selective. */
  maxSelectivity: number;
  /** Columns of one table tried as index candidates, at most. */
  maxColumnsPerTable: number;
  /** Report unused and duplicate indexes as drop_index suggestions. */
  indexHygiene: boolean;
  /** Index usage counters younger than this (statistics reset, server start) prove nothing: no unused-index suggestions. */
  unusedIndexMinStatsAgeMs: number;
  /** MySQL/MariaDB: rows read to estimate a column's distinct values. */
  mysqlSampleRows: number;
}

export const defaultAdvisorOptions: AdvisorOptions = {
  minImprovementPct: 50,
  analysisTimeoutMs: 10_000,
  lockTimeoutMs: 5_000,
  concurrentIndexLockTimeoutMs: 60_000,
  applyTimeoutMs: 6 * 3_600_000,
  connectTimeoutMs: 10_000,
  hypopg: 'auto',
  minTableRows: 10_000,
  maxSelectivity: 0.05,
  maxColumnsPerTable: 6,
  indexHygiene: true,
  unusedIndexMinStatsAgeMs: 7 * 86_400_000,
  mysqlSampleRows: 30_000,
};
