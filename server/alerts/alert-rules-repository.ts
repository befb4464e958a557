import type { Db } from '../storage/open-database.js';
import type { Operator } from './alert-evaluator.js';
import type { Severity } from './alerts-schema.js';

export interface AlertRuleRow {
  id: string;
  org_id: string;
  name: string;
  database_id: string | null;
  metric: string;
  operator: Operator;
  threshold: number;
  duration_seconds: number;
  severity: Severity;
  enabled: number;
  created_at: string;
  updated_at: string;
}

const columns = [
  'id', 'org_id', 'name', 'database_id', 'metric', 'operator', 'threshold', 'duration_seconds', 'severity', 'enabled', 'created_at', 'updated_at',
] as const;

export class AlertRulesRepository {
  readonly #insert;
  readonly #update;
  readonly #byId;
  readonly #page;
  readonly #count;
  readonly #delete;
  readonly #enabledOf;

  constructor(db: Db) {
    this.#insert = db.prepare<AlertRuleRow>(
      `INSERT INTO alert_rules (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`,
    );
    this.#update = db.prepare<AlertRuleRow>(
      `UPDATE alert_rules SET name = @name, database_id = @database_id, metric = @metric, operator = @operator,
         threshold = @threshold, duration_seconds = @duration_seconds, severity = @severity, enabled = @enabled,
         updated_at = @updated_at
       WHERE org_id = @org_id AND id = @id`,
    );
    this.#byId = db.prepare<[string, string], AlertRuleRow>('SELECT * FROM alert_rules WHERE org_id = ? AND id = ?');
    const filter = '(@database_id IS NULL OR database_id = @database_id)';
    this.#page = db.prepare<{ org_id: string; database_id: string | null; limit: number; offset: number }, AlertRuleRow>(
      `SELECT * FROM alert_rules WHERE org_id = @org_id AND ${filter} ORDER BY created_at, id LIMIT @limit OFFSET @offset`,
    );
    this.#count = db
      .prepare<{ org_id: string; database_id: string | null }, number>(`SELECT count(*) FROM alert_rules WHERE org_id = @org_id AND ${filter}`)
      .pluck();
    this.#delete = db.prepare<[string, string]>('DELETE FROM alert_rules WHERE org_id = ? AND id = ?');
    this.#enabledOf = db.prepare<[string], AlertRuleRow>('SELECT * FROM alert_rules WHERE org_id = ? AND enabled = 1 ORDER BY created_at, id');
  }

  insert(row: AlertRuleRow): void {
    this.#insert.run(row);
  }

  update(row: AlertRuleRow): void {
    this.#update.run(row);
  }

  findById(orgId: string, id: string): AlertRuleRow | undefined {
    return this.#byId.get(orgId, id);
  }

  list(orgId: string, databaseId: string | undefined, limit: number, offset: number): { rows: AlertRuleRow[]; total: number } {
    const where = { org_id: orgId, database_id: databaseId ?? null };
    return { rows: this.#page.all({ ...where, limit, offset }), total: this.#count.get(where)! };
  }

  delete(orgId: string, id: string): boolean {
    return this.#delete.run(orgId, id).changes === 1;
  }

  /** The organization's enabled rules, organization-wide and of one database, oldest first. */
  enabledOf(orgId: string): AlertRuleRow[] {
    return this.#enabledOf.all(orgId);
  }
}
