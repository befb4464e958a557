import { metricCatalog, type MetricDefinition } from '../../../common/metric-catalog.js';
import { alertMetrics, reachableMetric, statusMetric, statusValues, usedPctMetric } from '../../alerts/alert-metrics.js';

/** How the rules editor shows a threshold: a number in the metric's unit, 1 or 0 for reachability, or a status value. */
export type RuleMetricUnit = 'percent' | 'count' | 'bytes' | 'per_second' | 'milliseconds' | 'flag' | 'status';

export interface RuleMetricChoice {
  path: string;
  unit: RuleMetricUnit;
  help: string;
}

const catalogByPath = new Map<string, MetricDefinition>(metricCatalog.map((metric) => [metric.path, metric]));

const derived: Record<string, Omit<RuleMetricChoice, 'path'>> = {
  [usedPctMetric]: { unit: 'percent', help: 'Connections in use against the server limit, 0..100.' },
  [reachableMetric]: { unit: 'flag', help: '1 while collections succeed; 0 when one failed or no sample arrived for more than two intervals.' },
  [statusMetric]: { unit: 'status', help: 'The database status, from reachability and the alerts of metric rules.' },
};

/** Every metric a rule may watch, in the order and with the names the API accepts (alertMetrics), each with its unit. */
export const ruleMetricChoices: readonly RuleMetricChoice[] = alertMetrics.map((path) => {
  const definition = catalogByPath.get(path);
  return definition === undefined ? { path, ...derived[path]! } : { path, unit: definition.unit, help: definition.help };
});

export const ruleStatusValues = statusValues;
