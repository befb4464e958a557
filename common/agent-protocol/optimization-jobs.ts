import { z } from 'zod';
import { agentConnection } from './assignments.js';
import { databaseTypes } from './database-types.js';

/**
 * What the agent needs to apply a suggestion; it builds the SQL from these itself and never runs
 * text it is sent. Strict both ways: an agent must not apply a target it only half understands.
 */
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

const jobDatabase = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(databaseTypes),
  connection: agentConnection,
});
export type JobDatabase = z.output<typeof jobDatabase>;

/** A statement an analysis job looks at. */
export const analyzeStatement = z.object({
  query_id: z.string(),
  query: z.string(),
  calls: z.number(),
  total_time_ms: z.number(),
  mean_time_ms: z.number(),
});
export type AnalyzeStatement = z.output<typeof analyzeStatement>;

/** What an apply job applies. */
export const applyPayload = z.object({
  kind: z.enum(suggestionKinds),
  target: indexTarget,
  /** The statement whose plan proves the gain afterwards, when there is one. */
  query: z.string().nullable(),
});
export type ApplyPayload = z.output<typeof applyPayload>;

/** One job of `GET /v1/agent/jobs`. */
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
export type AgentJob = z.output<typeof agentJob>;
export type AnalyzeJob = Extract<AgentJob, { kind: 'analyze' }>;
export type ApplyJob = Extract<AgentJob, { kind: 'apply' }>;

/** The body of `GET /v1/agent/jobs`. */
export const agentJobList = z.object({ jobs: z.array(agentJob) }).meta({ id: 'AgentJobList' });
