import type { AlertRuleCreate } from './alerts-schema.js';
import { reachableMetric, usedPctMetric } from './alert-metrics.js';

/**
 * The rules every organization starts with, for all its databases. Migration 0003 gave the
 * organizations that existed then a frozen copy of these.
 */
export const stockAlertRules: readonly AlertRuleCreate[] = [
  {
    name: 'Connections above 90% of max',
    database_id: null,
    metric: usedPctMetric,
    operator: '>',
    threshold: 90,
    duration_seconds: 300,
    severity: 'warning',
    enabled: true,
  },
  {
    name: 'Disk above 90%',
    database_id: null,
    metric: 'disk_usage',
    operator: '>',
    threshold: 90,
    duration_seconds: 300,
    severity: 'warning',
    enabled: true,
  },
  {
    name: 'Database unreachable for 2 minutes',
    database_id: null,
    metric: reachableMetric,
    operator: '==',
    threshold: 0,
    duration_seconds: 120,
    severity: 'critical',
    enabled: true,
  },
];
