import { deriveDatabaseStatus, reachabilityOf, type AlertSeverity, type Reachability } from '../databases/database-status.js';
import type { DatabaseStatus } from '../databases/databases-schema.js';
import { seriesOf, type EvaluationInput, type Series } from './alert-evaluator.js';
import { reachableMetric, statusValues } from './alert-metrics.js';

/** When an alert of a metric rule was active: from its firing to its resolution (null: still active). */
export interface AlertSpan {
  severity: AlertSeverity;
  fromMs: number;
  toMs: number | null;
}

/**
 * What status rules watch: the database status at each sample and now, derived as the status
 * itself is (database-status.ts) from reachability and the alerts of metric rules active at that
 * moment. The alerts of status rules are left out, so a status rule never feeds on what it raised
 * itself: a `status == warning` rule of severity critical would otherwise flip between the two.
 * Values are indexes into statusValues.
 */
export function statusSeries(input: EvaluationInput, metricAlerts: readonly AlertSpan[]): Series {
  const statusAt = (ts: number, reachability: Reachability) =>
    statusCode(
      deriveDatabaseStatus({
        monitoringEnabled: input.monitoringEnabled,
        reachability,
        activeSeverities: metricAlerts.filter((alert) => alert.fromMs <= ts && (alert.toMs === null || alert.toMs > ts)).map((alert) => alert.severity),
      }),
    );
  // Before the first sample the database is pending from the start of monitoring.
  const reachable = seriesOf(reachableMetric, input)?.points ?? [{ ts: input.monitoringSinceMs, value: null }];
  const points = reachable.map((point) => ({
    ts: point.ts,
    value: statusAt(point.ts, point.value === null ? 'pending' : point.value === 1 ? 'reachable' : 'unreachable'),
  }));
  const endMs = Math.max(input.nowMs, points.at(-1)!.ts);
  points.push({ ts: endMs, value: statusAt(endMs, reachabilityOf(input)) });
  return { points, endMs };
}

function statusCode(status: DatabaseStatus): number {
  return statusValues.indexOf(status);
}
