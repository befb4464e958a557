import type { OptimizationRow } from './optimizations-repository.js';

export function presentOptimization(row: OptimizationRow) {
  return {
    id: row.id,
    database_id: row.database_id,
    query_id: row.query_id,
    parent_id: row.parent_id,
    kind: row.kind,
    status: row.status,
    summary: row.summary,
    statement: row.statement,
    estimated_improvement_pct: row.estimated_improvement_pct,
    cost_before: row.cost_before,
    cost_after: row.cost_after,
    cost_after_apply: row.cost_after_apply,
    measured_mean_time_ms_before: row.measured_mean_time_ms_before,
    measured_mean_time_ms_after: row.measured_mean_time_ms_after,
    confidence: row.confidence,
    evidence: row.evidence === null ? null : (JSON.parse(row.evidence) as Record<string, unknown>),
    auto_apply: row.auto_apply === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
    applied_at: row.applied_at,
    error: row.error,
  };
}
