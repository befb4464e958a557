import { newId } from '../crypto/new-id.js';
import type { MetricDefinition } from '../../common/metric-catalog.js';
import { presentDatabase } from '../databases/database-presenter.js';
import { deriveDatabaseStatus, isStale, reachabilityOf, staleReferenceMs, type ReachabilityInput } from '../databases/database-status.js';
import type { DatabaseRow } from '../databases/database-row.js';
import type { DatabaseStatus } from '../databases/databases-schema.js';
import type { EventOutbox } from '../webhooks/event-outbox.js';
import { alertMessage, evaluateAlerts, rulesThatCanAct, type AlertAction, type EvaluationInput, type ResolveReason } from './alert-evaluator.js';
import { reachableMetric, statusMetric, statusValues, storedMetricsOf, type EvaluatedSample } from './alert-metrics.js';
import { presentAlert } from './alert-presenter.js';
import type { AlertRuleIndex, ApplicableRules } from './alert-rule-index.js';
import type { AlertRow, AlertsRepository } from './alerts-repository.js';
import { statusSeries } from './status-series.js';
import type { Transaction } from '../storage/open-database.js';

/** The databases feature's records, as evaluation reads them and writes the status it derives. */
export interface EvaluatedDatabases {
  findAnyOrg(id: string): DatabaseRow | undefined;
  all(): DatabaseRow[];
  setStatus(id: string, status: DatabaseStatus): void;
}

/** When monitoring of a database was last switched back on (the databases feature keeps it). */
export interface MonitoringResumes {
  record(databaseId: string, atMs: number): void;
  resumedAt(databaseId: string): number | undefined;
}

/** The metrics feature's stored samples. */
export interface EvaluatedSamples {
  latest(databaseId: string): EvaluatedSample | undefined;
  /** Oldest first: each sample's time and reachability, and the values of these metrics. */
  since(databaseId: string, fromTs: number, metrics: readonly MetricDefinition[]): EvaluatedSample[];
}

export interface AlertEvaluationDependencies {
  databases: EvaluatedDatabases;
  samples: EvaluatedSamples;
  rules: Pick<AlertRuleIndex, 'applicableTo'>;
  alerts: AlertsRepository;
  resumes: MonitoringResumes;
  events: EventOutbox;
  transaction: Transaction;
  /**
   * When this server process started: the silence since the newest sample counts from then at the
   * earliest (while the server was down, samples could not arrive). A gap between two stored samples
   * breaks a hold all the same (seriesOf). Unset: silence counts from creation.
   */
  startedAtMs?: number;
}

const noRules: ApplicableRules = { metricRules: [], statusRules: [], longestHoldMs: 0 };

const resolutionNotes: Record<ResolveReason, string | null> = {
  cleared: null,
  rule_gone: 'The rule was deleted, disabled or no longer covers this database',
  monitoring_paused: 'Monitoring of the database was paused',
};

/**
 * Runs the pure evaluator over what is stored and applies its decisions: alerts, the database
 * status derived from them and from reachability, and an event for every change, all in the
 * caller's transaction. Its triggers: each ingest (evaluateDatabases, the pipeline's last step),
 * the timer (evaluateAll, so silence is noticed), a rule change (evaluateOrganization), a manual
 * resolve (evaluateDatabases) and a database's new settings (databaseUpdated).
 */
export class AlertEvaluationService {
  constructor(private readonly deps: AlertEvaluationDependencies) {}

  /** In the caller's transaction: the databases that just got samples, or whose alert was resolved by hand. */
  evaluateDatabases(databaseIds: readonly string[], now: Date): void {
    for (const id of new Set(databaseIds)) {
      const row = this.deps.databases.findAnyOrg(id);
      if (row !== undefined) this.evaluate(row, now);
    }
  }

  /** Every database, each in a transaction of its own. Returns how many alerts fired or resolved. */
  evaluateAll(now: Date): number {
    let changes = 0;
    for (const { id } of this.deps.databases.all()) changes += this.evaluateOnItsOwn(id, now);
    return changes;
  }

  /** One database in a transaction of its own (the timer's job); how many alerts fired or resolved. */
  evaluateOnItsOwn(databaseId: string, now: Date): number {
    return this.deps.transaction(() => {
      const row = this.deps.databases.findAnyOrg(databaseId);
      return row === undefined ? 0 : this.evaluate(row, now).actions;
    });
  }

  /** After a rule changed: every database of the organization, in the caller's transaction. */
  evaluateOrganization(orgId: string, now: Date): void {
    for (const row of this.deps.databases.all()) if (row.org_id === orgId) this.evaluate(row, now);
  }

  /**
   * After a database's settings were written (in the same transaction): notes a resume of
   * monitoring, re-evaluates, and returns the status now in force.
   */
  databaseUpdated(previous: DatabaseRow, next: DatabaseRow, now: Date): DatabaseStatus {
    if (previous.monitoring_enabled === 0 && next.monitoring_enabled === 1) this.deps.resumes.record(next.id, now.getTime());
    return this.evaluate({ ...next, status: previous.status }, now).status;
  }

  /**
   * Rules are judged on the samples only when they can act (rulesThatCanAct): a rule with no open
   * alert or suppression whose condition fails on the newest sample gives no action, so most
   * rules of a healthy database cost one comparison and no read of history.
   */
  private evaluate(database: DatabaseRow, now: Date): { status: DatabaseStatus; actions: number } {
    const { samples, alerts, resumes } = this.deps;
    const nowMs = now.getTime();
    const resumedAt = resumes.resumedAt(database.id) ?? Number.NEGATIVE_INFINITY;
    const monitoringEnabled = database.monitoring_enabled === 1;
    const rules = monitoringEnabled ? this.deps.rules.applicableTo(database.org_id, database.id) : noRules;
    const intervalMs = database.interval_seconds * 1000;
    const latest = samples.latest(database.id);
    const lastSample = latest !== undefined && latest.ts >= resumedAt ? { ts: latest.ts, reachable: latest.reachable } : undefined;
    const monitoringSinceMs = Math.max(Date.parse(database.created_at), resumedAt, this.deps.startedAtMs ?? Number.NEGATIVE_INFINITY);
    const window = Math.max(nowMs - rules.longestHoldMs - 3 * intervalMs, resumedAt);
    let openAlerts = alerts.activeFor(database.id);
    const newest: EvaluationInput = {
      nowMs,
      monitoringEnabled,
      intervalMs,
      monitoringSinceMs,
      lastSample,
      samples: lastSample === undefined ? [] : [latest!],
      rules: rules.metricRules,
      openAlerts,
      suppressions: alerts.suppressionsFor(database.id),
    };
    const acting = rulesThatCanAct(newest);
    let history: EvaluatedSample[] | undefined;
    // What the acting rules watch; status rules read reachability alone, which every sample has.
    const samplesInWindow = () =>
      (history ??= lastSample === undefined ? [] : samples.since(database.id, Math.min(window, lastSample.ts), storedMetricsOf(acting.map((rule) => rule.metric))));
    // Status rules stay in the first pass so their open alerts do not count as of a rule gone.
    const input = { ...newest, rules: [...acting, ...rules.statusRules], samples: acting.length > 0 ? samplesInWindow() : newest.samples };
    const actions = evaluateAlerts(input);
    const cause = unreachableCause(database, input);
    for (const action of actions) this.apply(database, action, now, cause);
    if (actions.length > 0) openAlerts = alerts.activeFor(database.id);
    // Status rules go second, on the status that the metric rules' alerts just settled.
    if (rules.statusRules.length > 0) {
      const statusNow = statusValues.indexOf(statusOf(input, openAlerts.filter((alert) => alert.metric !== statusMetric)));
      const statusInput = {
        ...input,
        rules: rules.statusRules,
        openAlerts: openAlerts.filter((alert) => alert.metric === statusMetric),
        suppressions: actions.length > 0 ? alerts.suppressionsFor(database.id) : input.suppressions,
      };
      const statusActing = rulesThatCanAct({ ...statusInput, statusSeries: { points: [{ ts: nowMs, value: statusNow }], endMs: nowMs } });
      if (statusActing.length > 0) {
        const watched = { ...statusInput, rules: statusActing, samples: samplesInWindow() };
        const firstMs = Math.min(nowMs, watched.samples[0]?.ts ?? nowMs, monitoringSinceMs);
        const statusActions = evaluateAlerts({ ...watched, statusSeries: statusSeries(watched, alerts.metricAlertSpans(database.id, firstMs)) });
        for (const action of statusActions) this.apply(database, action, now, cause);
        if (statusActions.length > 0) openAlerts = alerts.activeFor(database.id);
        actions.push(...statusActions);
      }
    }

    const status = statusOf(input, openAlerts);
    if (status !== database.status) {
      this.deps.databases.setStatus(database.id, status);
      this.deps.events.publish(
        database.org_id,
        'database.status_changed',
        { object: presentDatabase({ ...database, status }), previous_attributes: { status: database.status } },
        now,
      );
    }
    return { status, actions: actions.filter((action) => action.kind !== 'rearm').length };
  }

  /** `unreachableCause` goes into the message of an alert on `reachable`. */
  private apply(database: DatabaseRow, action: AlertAction, now: Date, unreachableCause: string | undefined): void {
    const { alerts, events } = this.deps;
    switch (action.kind) {
      case 'fire': {
        const { rule } = action;
        const row: AlertRow = {
          id: newId('alert'),
          org_id: database.org_id,
          rule_id: rule.id,
          database_id: database.id,
          severity: rule.severity,
          status: 'active',
          metric: rule.metric,
          operator: rule.operator,
          value: action.value,
          threshold: rule.threshold,
          message: alertMessage(rule, action.value, rule.metric === reachableMetric ? unreachableCause : undefined),
          triggered_at: now.toISOString(),
          resolved_at: null,
          resolved_by: null,
          resolution_note: null,
        };
        if (!alerts.insert(row)) return;
        events.publish(database.org_id, 'alert.triggered', { object: presentAlert(row) }, now);
        return;
      }
      case 'resolve': {
        const resolved = alerts.resolve(action.alertId, {
          resolved_at: now.toISOString(),
          resolved_by: 'auto',
          resolution_note: resolutionNotes[action.reason],
        });
        const row = alerts.findById(database.org_id, action.alertId);
        if (resolved && row !== undefined) events.publish(database.org_id, 'alert.resolved', { object: presentAlert(row) }, now);
        return;
      }
      case 'rearm':
        alerts.unsuppress(action.ruleId, database.id);
        return;
    }
  }
}

/** The status reachability and these active alerts give (database-status.ts). */
function statusOf(input: EvaluationInput, activeAlerts: readonly Pick<AlertRow, 'severity'>[]): DatabaseStatus {
  return deriveDatabaseStatus({
    monitoringEnabled: input.monitoringEnabled,
    reachability: reachabilityOf(input),
    activeSeverities: activeAlerts.map((alert) => alert.severity),
  });
}

/** Why a database counts as unreachable, in words: samples that stopped arriving, and the agent's last error. */
function unreachableCause(database: DatabaseRow, input: ReachabilityInput): string | undefined {
  const causes: string[] = [];
  if (isStale(input)) causes.push(`no sample has arrived since ${new Date(staleReferenceMs(input)).toISOString()}`);
  if (database.last_error_code !== null) causes.push(`last error (${database.last_error_code}): ${database.last_error_message}`);
  return causes.length === 0 ? undefined : causes.join('; ');
}
