import type { AlertRuleRow } from './alert-rules-repository.js';
import type { AlertRow } from './alerts-repository.js';
import { presentMetricValue } from './alert-metrics.js';

export function presentAlertRule(row: AlertRuleRow) {
  return {
    id: row.id,
    name: row.name,
    database_id: row.database_id,
    metric: row.metric,
    operator: row.operator,
    threshold: presentMetricValue(row.metric, row.threshold),
    duration_seconds: row.duration_seconds,
    severity: row.severity,
    enabled: row.enabled === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentAlert(row: AlertRow) {
  return {
    id: row.id,
    rule_id: row.rule_id,
    database_id: row.database_id,
    severity: row.severity,
    status: row.status,
    metric: row.metric,
    operator: row.operator,
    value: row.value === null ? null : presentMetricValue(row.metric, row.value),
    threshold: presentMetricValue(row.metric, row.threshold),
    message: row.message,
    triggered_at: row.triggered_at,
    resolved_at: row.resolved_at,
    resolved_by: row.resolved_by,
    resolution_note: row.resolution_note,
  };
}
