import type { Db } from '../storage/open-database.js';
import type { Operator } from './alert-evaluator.js';
import { statusMetric } from './alert-metrics.js';
import type { AlertSpan } from './status-series.js';
import { severities, type AlertStatus, type Severity } from './alerts-schema.js';

export interface AlertRow {
  id: string;
  org_id: string;
  rule_id: string;
  database_id: string;
  severity: Severity;
  status: AlertStatus;
  metric: string;
  operator: Operator;
  value: number | null;
  threshold: number;
  message: string;
  triggered_at: string;
  resolved_at: string | null;
  resolved_by: string | null;
  resolution_note: string | null;
}

export interface AlertFilter {
  status: AlertStatus | 'all';
  database_id?: string | undefined;
  severity?: Severity | undefined;
}

export interface Resolution {
  resolved_at: string;
  resolved_by: string;
  resolution_note: string | null;
}

const columns = [
  'id', 'org_id', 'rule_id', 'database_id', 'severity', 'status', 'metric', 'operator', 'value', 'threshold', 'message',
  'triggered_at', 'resolved_at', 'resolved_by', 'resolution_note',
] as const;

export class AlertsRepository {
  readonly #insert;
  readonly #resolve;
  readonly #byId;
  readonly #page;
  readonly #count;
  readonly #activeFor;
  readonly #suppress;
  readonly #unsuppress;
  readonly #suppressionsFor;
  readonly #dropSuppressionsOfRule;
  readonly #metricAlertSpans;
  readonly #activeBySeverity;

  constructor(db: Db) {
    // OR IGNORE: the partial unique index (one active alert per rule and database) has the last word.
    this.#insert = db.prepare<AlertRow>(
      `INSERT OR IGNORE INTO alerts (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`,
    );
    this.#resolve = db.prepare<Resolution & { id: string }>(
      `UPDATE alerts SET status = 'resolved', resolved_at = @resolved_at, resolved_by = @resolved_by, resolution_note = @resolution_note
       WHERE id = @id AND status = 'active'`,
    );
    this.#byId = db.prepare<[string, string], AlertRow>('SELECT * FROM alerts WHERE org_id = ? AND id = ?');
    const filter = `(@status = 'all' OR status = @status) AND (@database_id IS NULL OR database_id = @database_id)
      AND (@severity IS NULL OR severity = @severity)`;
    type Where = { org_id: string; status: string; database_id: string | null; severity: string | null };
    this.#page = db.prepare<Where & { limit: number; offset: number }, AlertRow>(
      `SELECT * FROM alerts WHERE org_id = @org_id AND ${filter} ORDER BY triggered_at DESC, id DESC LIMIT @limit OFFSET @offset`,
    );
    this.#count = db.prepare<Where, number>(`SELECT count(*) FROM alerts WHERE org_id = @org_id AND ${filter}`).pluck();
    this.#activeFor = db.prepare<[string], AlertRow>(
      "SELECT * FROM alerts WHERE database_id = ? AND status = 'active' ORDER BY triggered_at, id",
    );
    this.#suppress = db.prepare<[string, string, number]>(
      `INSERT INTO alert_suppressions (rule_id, database_id, since) VALUES (?, ?, ?)
       ON CONFLICT (rule_id, database_id) DO UPDATE SET since = excluded.since`,
    );
    this.#unsuppress = db.prepare<[string, string]>('DELETE FROM alert_suppressions WHERE rule_id = ? AND database_id = ?');
    this.#suppressionsFor = db.prepare<[string], { rule_id: string; since: number }>(
      'SELECT rule_id, since FROM alert_suppressions WHERE database_id = ?',
    );
    this.#dropSuppressionsOfRule = db.prepare<[string]>('DELETE FROM alert_suppressions WHERE rule_id = ?');
    this.#metricAlertSpans = db.prepare<[string, string, string], Pick<AlertRow, 'severity' | 'triggered_at' | 'resolved_at'>>(
      'SELECT severity, triggered_at, resolved_at FROM alerts WHERE database_id = ? AND metric != ? AND (resolved_at IS NULL OR resolved_at > ?)',
    );
    // Reads only the active alerts, through the partial index alerts_one_active.
    this.#activeBySeverity = db.prepare<[], { severity: Severity; count: number }>(
      "SELECT severity, count(*) AS count FROM alerts WHERE status = 'active' GROUP BY severity",
    );
  }

  /** False when the rule already has an active alert on this database. */
  insert(row: AlertRow): boolean {
    return this.#insert.run(row).changes === 1;
  }

  /** False when the alert was resolved already. */
  resolve(id: string, resolution: Resolution): boolean {
    return this.#resolve.run({ id, ...resolution }).changes === 1;
  }

  findById(orgId: string, id: string): AlertRow | undefined {
    return this.#byId.get(orgId, id);
  }

  /** Newest first. */
  list(orgId: string, filter: AlertFilter, limit: number, offset: number): { rows: AlertRow[]; total: number } {
    const where = { org_id: orgId, status: filter.status, database_id: filter.database_id ?? null, severity: filter.severity ?? null };
    return { rows: this.#page.all({ ...where, limit, offset }), total: this.#count.get(where)! };
  }

  activeFor(databaseId: string): AlertRow[] {
    return this.#activeFor.all(databaseId);
  }

  suppress(ruleId: string, databaseId: string, sinceMs: number): void {
    this.#suppress.run(ruleId, databaseId, sinceMs);
  }

  unsuppress(ruleId: string, databaseId: string): void {
    this.#unsuppress.run(ruleId, databaseId);
  }

  suppressionsFor(databaseId: string): { rule_id: string; since: number }[] {
    return this.#suppressionsFor.all(databaseId);
  }

  dropSuppressionsOfRule(ruleId: string): void {
    this.#dropSuppressionsOfRule.run(ruleId);
  }

  /** The alerts of metric rules (not of status rules) on this database that were active at some moment from `sinceMs` on. */
  metricAlertSpans(databaseId: string, sinceMs: number): AlertSpan[] {
    return this.#metricAlertSpans.all(databaseId, statusMetric, new Date(sinceMs).toISOString()).map((row) => ({
      severity: row.severity,
      fromMs: Date.parse(row.triggered_at),
      toMs: row.resolved_at === null ? null : Date.parse(row.resolved_at),
    }));
  }

  /** Active alerts of every organization, by severity; 0 for a severity without any. */
  activeCountsBySeverity(): Record<Severity, number> {
    const counts = Object.fromEntries(severities.map((severity) => [severity, 0])) as Record<Severity, number>;
    for (const { severity, count } of this.#activeBySeverity.all()) counts[severity] = count;
    return counts;
  }
}
