import { z } from 'zod';
import { agentConnection } from '../agents/agent-protocol-schema.js';
import { databaseTypes } from '../databases/databases-schema.js';

/** What the agent needs to apply a suggestion; it builds the SQL from these itself and never runs text it is sent. */
export const indexTarget = z
  .strictObject({
    schema: z.string().min(1).max(128),
    table: z.string().min(1).max(128),
    index_name: z.string().min(1).max(128),
    columns: z.array(z.string().min(1).max(128)).max(16),
  })
  .meta({ id: 'IndexTarget' });
export type IndexTarget = z.output<typeof indexTarget>;

export const suggestionKinds = ['create_index', 'drop_index'] as const;
export const confidences = ['high', 'medium', 'low'] as const;

const suggestion = z.strictObject({
  kind: z.enum(suggestionKinds),
  query_id: z.string().max(64).nullable(),
  summary: z.string().max(2000),
  statement: z.string().max(10_000),
  target: indexTarget,
  estimated_improvement_pct: z.number().min(0).max(100).nullable(),
  cost_before: z.number().min(0).nullable(),
  cost_after: z.number().min(0).nullable(),
  confidence: z.enum(confidences),
  evidence: z.record(z.string(), z.unknown()),
});
export type Suggestion = z.output<typeof suggestion>;

export const statementOutcomes = ['suggestion', 'no_suggestion', 'refused', 'failed'] as const;

const analyzeResult = z.strictObject({
  kind: z.literal('analyze'),
  outcome: z.enum(['completed', 'failed']),
  error: z.string().max(4000).optional(),
  statements: z
    .array(z.strictObject({ query_id: z.string().max(64), outcome: z.enum(statementOutcomes), detail: z.string().max(4000) }))
    .max(100),
  suggestions: z.array(suggestion).max(200),
});

const applyResult = z.strictObject({
  kind: z.literal('apply'),
  outcome: z.enum(['applied', 'failed']),
  error: z.string().max(4000).optional(),
  cost_after_apply: z.number().min(0).nullable(),
  evidence: z.record(z.string(), z.unknown()).optional(),
});

export const jobResultBody = z.discriminatedUnion('kind', [analyzeResult, applyResult]).meta({ id: 'AgentJobResult' });
export type JobResult = z.output<typeof jobResultBody>;
export type AnalyzeResult = z.output<typeof analyzeResult>;
export type ApplyResult = z.output<typeof applyResult>;

const jobDatabase = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(databaseTypes),
  connection: agentConnection,
});

export const analyzeStatement = z.object({
  query_id: z.string(),
  query: z.string(),
  calls: z.number(),
  total_time_ms: z.number(),
  mean_time_ms: z.number(),
});
export type AnalyzeStatement = z.output<typeof analyzeStatement>;

export const applyPayload = z.object({
  kind: z.enum(suggestionKinds),
  target: indexTarget,
  /** The statement whose plan proves the gain afterwards, when there is one. */
  query: z.string().nullable(),
});
export type ApplyPayload = z.output<typeof applyPayload>;

export const agentJob = z
  .discriminatedUnion('kind', [
    z.object({
      id: z.string(),
      kind: z.literal('analyze'),
      optimization_id: z.string(),
      database: jobDatabase,
      statements: z.array(analyzeStatement),
    }),
    z.object({ id: z.string(), kind: z.literal('apply'), optimization_id: z.string(), database: jobDatabase, apply: applyPayload }),
  ])
  .meta({ id: 'AgentJob' });
export type AgentJobWire = z.output<typeof agentJob>;

export const agentJobList = z.object({ jobs: z.array(agentJob) }).meta({ id: 'AgentJobList' });

export const jobReceipt = z
  .object({ job_id: z.string(), duplicate: z.boolean().describe('The result of this job had been reported before; nothing changed') })
  .meta({ id: 'AgentJobReceipt' });
