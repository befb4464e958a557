import { silenceStartMs, type AlertSeverity } from '../databases/database-status.js';
import { metricValue, presentMetricValue, reachableMetric, statusMetric, type EvaluatedSample } from './alert-metrics.js';

export const operators = ['>', '>=', '<', '<=', '==', '!='] as const;
export type Operator = (typeof operators)[number];

/** Share of |threshold| a value must move back past the threshold before an alert resolves. */
export const hysteresisRatio = 0.05;

export interface RuleSpec {
  id: string;
  name: string;
  metric: string;
  operator: Operator;
  threshold: number;
  duration_seconds: number;
  severity: AlertSeverity;
}

export interface EvaluationInput {
  nowMs: number;
  monitoringEnabled: boolean;
  intervalMs: number;
  /** When samples started to count: the database's creation, or monitoring last switched back on. */
  monitoringSinceMs: number;
  /** The newest sample since monitoringSince, however old. */
  lastSample: { ts: number; reachable: number } | undefined;
  /** Samples since monitoringSince, oldest first, reaching back at least the longest rule duration plus three intervals. */
  samples: readonly EvaluatedSample[];
  /** The enabled rules that apply to this database. */
  rules: readonly RuleSpec[];
  /** Active alerts of this database. */
  openAlerts: readonly { id: string; rule_id: string }[];
  /** Rules whose alert on this database a user resolved by hand, and when. */
  suppressions: readonly { rule_id: string; since: number }[];
  /** What status rules watch (statusSeries in status-series.ts); absent, they neither fire nor resolve. */
  statusSeries?: Series;
}

export type ResolveReason = 'cleared' | 'rule_gone' | 'monitoring_paused';

export type AlertAction =
  | { kind: 'fire'; rule: RuleSpec; value: number | null; sinceMs: number }
  | { kind: 'resolve'; alertId: string; ruleId: string; value: number | null; reason: ResolveReason }
  | { kind: 'rearm'; ruleId: string };

export interface Point {
  ts: number;
  value: number | null;
}

/** A rule's view of the database: its points, and until when the last one is known to hold. */
export interface Series {
  points: Point[];
  endMs: number;
}

/**
 * Decides, for one database, which alerts fire and which resolve. Pure: the same input always
 * gives the same actions, and nothing is read or written.
 *
 * - Fire: the condition held on every sample of a trailing run that spans `duration_seconds`
 *   (from its first sample to the newest; 0 fires on the first sample). At most one active alert
 *   per rule: a rule with an open alert never fires.
 * - Resolve (hysteresis): the value is back past the threshold by 5 % of |threshold| (exactly,
 *   for `==`, `!=` and `reachable`) on every sample of a trailing run of at least two samples that
 *   also spans `duration_seconds`. A value hovering at the threshold, or alternating across it,
 *   therefore never resolves and re-fires. `reachable` is a fact, not a measurement near a
 *   threshold: its alert resolves on the first reachable sample, whatever its hold.
 * - Unknown (a metric missing from the newest sample, or samples stale for a metric other than
 *   `reachable`) neither fires nor resolves.
 * - A silence of more than two intervals between samples breaks every run, as no data breaks
 *   Prometheus's `for`: a hold counts again from the first sample after it (seriesOf), also when
 *   the silence fell while the server itself was down.
 * - `reachable` is 1/0 per sample; when samples stopped arriving for more than two intervals (or
 *   never came), it is 0 from that moment until now, or until the next sample.
 * - After a manual resolve, the rule does not fire on this database again until one sample after
 *   the resolve is clear (past the threshold by the margin): then it is re-armed.
 * - Open alerts whose rule no longer applies (deleted, disabled, moved to another database) and
 *   all open alerts of a paused database resolve.
 * - `status` rules see `input.statusSeries` (status codes, compared with == and != only).
 */
export function evaluateAlerts(input: EvaluationInput): AlertAction[] {
  const actions: AlertAction[] = [];
  const rulesById = new Map(input.rules.map((rule) => [rule.id, rule]));
  for (const alert of input.openAlerts) {
    if (!input.monitoringEnabled) {
      actions.push({ kind: 'resolve', alertId: alert.id, ruleId: alert.rule_id, value: null, reason: 'monitoring_paused' });
    } else if (!rulesById.has(alert.rule_id)) {
      actions.push({ kind: 'resolve', alertId: alert.id, ruleId: alert.rule_id, value: null, reason: 'rule_gone' });
    }
  }
  if (!input.monitoringEnabled) return actions;

  for (const rule of input.rules) {
    const series = seriesOf(rule.metric, input);
    if (series === undefined) continue;
    const lastValue = series.points.at(-1)?.value ?? null;
    const open = input.openAlerts.find((alert) => alert.rule_id === rule.id);
    if (open !== undefined) {
      if (cleared(rule, series, lastValue)) actions.push({ kind: 'resolve', alertId: open.id, ruleId: rule.id, value: lastValue, reason: 'cleared' });
      continue;
    }
    const suppression = input.suppressions.find((entry) => entry.rule_id === rule.id);
    if (suppression !== undefined) {
      const clearedSince = series.points.some(
        (point) => point.ts > suppression.since && point.value !== null && clearedPastMargin(rule, point.value),
      );
      if (!clearedSince) continue;
      actions.push({ kind: 'rearm', ruleId: rule.id });
    }
    const firingRun = trailingRun(series.points, (value) => conditionHolds(rule, value));
    if (firingRun !== undefined && series.endMs - firingRun.startMs >= rule.duration_seconds * 1000) {
      actions.push({ kind: 'fire', rule, value: lastValue, sinceMs: firingRun.startMs });
    }
  }
  return actions;
}

/**
 * The rules of `input` that evaluateAlerts can act on: those with an open alert or a suppression,
 * and those whose condition holds on the newest point of what they watch (a rule fires only on a
 * run that ends there). For any other rule evaluateAlerts gives no action. The newest point
 * depends on the newest sample and the clock alone, so `input.samples` may hold just the newest
 * sample and `input.statusSeries` just its last point: history is then read for these rules only.
 */
export function rulesThatCanAct(input: EvaluationInput): RuleSpec[] {
  const watched = new Set([...input.openAlerts.map((alert) => alert.rule_id), ...input.suppressions.map((entry) => entry.rule_id)]);
  const newestByMetric = new Map<string, number | null>();
  const newestOf = (metric: string) => {
    let value = newestByMetric.get(metric);
    if (value === undefined) {
      value = seriesOf(metric, input)?.points.at(-1)?.value ?? null;
      newestByMetric.set(metric, value);
    }
    return value;
  };
  return input.rules.filter((rule) => {
    if (watched.has(rule.id)) return true;
    const newest = newestOf(rule.metric);
    return newest !== null && conditionHolds(rule, newest);
  });
}

export function conditionHolds(rule: Pick<RuleSpec, 'operator' | 'threshold'>, value: number): boolean {
  const { threshold } = rule;
  switch (rule.operator) {
    case '>':
      return value > threshold;
    case '>=':
      return value >= threshold;
    case '<':
      return value < threshold;
    case '<=':
      return value <= threshold;
    case '==':
      return value === threshold;
    case '!=':
      return value !== threshold;
  }
}

/** The condition is false, and for ordered comparisons the value is past the threshold by the hysteresis margin. */
export function clearedPastMargin(rule: Pick<RuleSpec, 'operator' | 'threshold' | 'metric'>, value: number): boolean {
  const margin = rule.metric === reachableMetric ? 0 : Math.abs(rule.threshold) * hysteresisRatio;
  const { threshold } = rule;
  switch (rule.operator) {
    case '>':
      return value <= threshold - margin;
    case '>=':
      return value < threshold - margin;
    case '<':
      return value >= threshold + margin;
    case '<=':
      return value > threshold + margin;
    case '==':
      return value !== threshold;
    case '!=':
      return value === threshold;
  }
}

/**
 * Whether the open alert of `rule` resolves on `series`. Reachability resolves on its newest
 * point, as Prometheus resolves `up == 0` once a scrape succeeds: the hold delays firing only. A
 * run of clear samples held against a hold would span a silence between two stored samples (the
 * series has no point for it), so a database back after a silence would resolve at once or two
 * minutes later depending on whether samples from before the silence were still in the window.
 */
function cleared(rule: RuleSpec, series: Series, newest: number | null): boolean {
  if (rule.metric === reachableMetric) return newest !== null && clearedPastMargin(rule, newest);
  const clearRun = trailingRun(series.points, (value) => clearedPastMargin(rule, value));
  return clearRun !== undefined && clearRun.length >= 2 && series.endMs - clearRun.startMs >= rule.duration_seconds * 1000;
}

/** The text of an alert: what the rule watches, what it saw and what it expects. */
export function alertMessage(rule: RuleSpec, value: number | null, cause?: string): string {
  const seen = value === null ? 'unknown' : String(presentMetricValue(rule.metric, Math.round(value * 100) / 100));
  const hold = rule.duration_seconds > 0 ? ` for ${rule.duration_seconds} s` : '';
  const because = cause === undefined ? '' : `; ${cause}`;
  return `${rule.name}: ${rule.metric} is ${seen} (${rule.operator} ${presentMetricValue(rule.metric, rule.threshold)}${hold})${because}`;
}

/**
 * The points a rule on `metric` judges; undefined when nothing is known. A silence (samples
 * stopped for more than two intervals) is a point of its own from the moment the samples were due:
 * unreachable for `reachable`, unknown for any other metric. Between two samples it breaks every
 * run, so no hold spans a time the database was not measured; it is judged on their times alone,
 * as the start of monitoring is not in it (`monitoringSinceMs` counts the silence after the newest).
 */
export function seriesOf(metric: string, input: EvaluationInput): Series | undefined {
  if (metric === statusMetric) return input.statusSeries;
  const silenceValue = metric === reachableMetric ? 0 : null;
  const { intervalMs } = input;
  const points: Point[] = [];
  let previous: EvaluatedSample | undefined;
  for (const sample of input.samples) {
    const silenceMs = previous && silenceStartMs({ nowMs: sample.ts, intervalMs, monitoringSinceMs: Number.NEGATIVE_INFINITY, lastSample: previous });
    if (silenceMs !== undefined) points.push({ ts: silenceMs, value: silenceValue });
    points.push({ ts: sample.ts, value: metricValue(sample, metric) });
    previous = sample;
  }
  const silenceMs = silenceStartMs(input);
  if (silenceMs !== undefined) {
    if (metric !== reachableMetric) return undefined;
    points.push({ ts: silenceMs, value: 0 });
    return { points, endMs: input.nowMs };
  }
  return points.length === 0 ? undefined : { points, endMs: points.at(-1)!.ts };
}

/** The trailing run of points whose value is known and passes `test`: where it starts and how many points it has. */
function trailingRun(points: readonly Point[], test: (value: number) => boolean): { startMs: number; length: number } | undefined {
  let index = points.length;
  while (index > 0) {
    const value = points[index - 1]!.value;
    if (value === null || !test(value)) break;
    index--;
  }
  if (index === points.length) return undefined;
  return { startMs: points[index]!.ts, length: points.length - index };
}
