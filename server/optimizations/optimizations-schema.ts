import { z } from 'zod';
import { confidences } from '../../common/agent-protocol/job-results.js';
import { pagingQuery, paginationSchema } from '../http/paging.js';

export const optimizationKinds = ['create_index', 'drop_index', 'setting', 'rewrite'] as const;
export type OptimizationKind = (typeof optimizationKinds)[number];

export const optimizationStatuses = ['pending', 'analyzing', 'ready', 'no_suggestion', 'applying', 'applied', 'failed', 'dismissed'] as const;
export type OptimizationStatus = (typeof optimizationStatuses)[number];

export const optimizeBody = z
  .strictObject({
    query_id: z.string().optional().describe('The statement to optimize (query_...); absent: the top statements by total time in the last 24 h'),
    auto_apply: z
      .boolean()
      .default(false)
      .describe("Apply the suggestion as soon as it is ready; only where the organization's settings allow it (403 auto_apply_not_allowed otherwise)"),
  })
  .meta({ id: 'OptimizationRequest' });
export type OptimizeBody = z.output<typeof optimizeBody>;

const nullableNumber = z.number().nullable();

export const optimizationRecord = z
  .object({
    id: z.string(),
    database_id: z.string(),
    query_id: z.string().nullable(),
    parent_id: z.string().nullable().describe('The requested optimization whose analysis produced this one; null for requested ones'),
    kind: z.enum(optimizationKinds).nullable().describe('null until the analysis found something'),
    status: z.enum(optimizationStatuses),
    summary: z.string().nullable(),
    statement: z.string().nullable().describe('The exact SQL that applying runs'),
    estimated_improvement_pct: nullableNumber.describe("The planner's (or the estimate's) cost reduction, percent"),
    cost_before: nullableNumber.describe('PostgreSQL: planner cost units; MySQL/MariaDB: rows examined (estimate)'),
    cost_after: nullableNumber,
    cost_after_apply: nullableNumber.describe('From a fresh plan once applied'),
    measured_mean_time_ms_before: nullableNumber.describe('Mean time per call in the 24 h before applying, from the slow-query deltas'),
    measured_mean_time_ms_after: nullableNumber.describe('Mean time per call over the collection intervals after applying (up to 24 h)'),
    confidence: z.enum(confidences).nullable().describe('high: measured by the planner with a hypothetical index; medium/low: estimates and heuristics'),
    evidence: z.record(z.string(), z.unknown()).nullable().describe('Plan excerpts, candidates tried, method'),
    auto_apply: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
    applied_at: z.string().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: 'Optimization' });

export const optimizationList = z
  .object({ data: z.array(optimizationRecord), pagination: paginationSchema() })
  .meta({ id: 'OptimizationList' });

export const optimizationListQuery = z.strictObject({
  ...pagingQuery,
  database_id: z.string().optional(),
  status: z.enum(optimizationStatuses).optional(),
});
export type OptimizationListQuery = z.output<typeof optimizationListQuery>;

export const optimizationIdParams = z.object({ id: z.string() });
