import { z } from 'zod';
import { maxJobDetailLength } from './limits.js';
import { indexTarget, suggestionKinds } from './optimization-jobs.js';

export const confidences = ['high', 'medium', 'low'] as const;
export type Confidence = (typeof confidences)[number];

const suggestion = z.strictObject({
  kind: z.enum(suggestionKinds),
  query_id: z.string().max(64).nullable(),
  summary: z.string().max(2000),
  /** The exact SQL that applying runs. */
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
export type StatementOutcome = (typeof statementOutcomes)[number];

const statementAnalysis = z.strictObject({
  query_id: z.string().max(64),
  outcome: z.enum(statementOutcomes),
  detail: z.string().max(maxJobDetailLength),
});
export type StatementAnalysis = z.output<typeof statementAnalysis>;

const analyzeResult = z.strictObject({
  kind: z.literal('analyze'),
  outcome: z.enum(['completed', 'failed']),
  error: z.string().max(maxJobDetailLength).optional(),
  statements: z.array(statementAnalysis).max(100),
  suggestions: z.array(suggestion).max(200),
});
export type AnalyzeResult = z.output<typeof analyzeResult>;

const applyResult = z.strictObject({
  kind: z.literal('apply'),
  outcome: z.enum(['applied', 'failed']),
  error: z.string().max(maxJobDetailLength).optional(),
  cost_after_apply: z.number().min(0).nullable(),
  evidence: z.record(z.string(), z.unknown()).optional(),
});
export type ApplyResult = z.output<typeof applyResult>;

/** The body of `POST /v1/agent/jobs/{id}/result`. */
export const jobResult = z.discriminatedUnion('kind', [analyzeResult, applyResult]).meta({ id: 'AgentJobResult' });
export type JobResult = z.output<typeof jobResult>;

/** The answer to a job result. */
export const jobReceipt = z
  .object({ job_id: z.string(), duplicate: z.boolean().describe('The result of this job had been reported before; nothing changed') })
  .meta({ id: 'AgentJobReceipt' });
export type JobReceipt = z.output<typeof jobReceipt>;
