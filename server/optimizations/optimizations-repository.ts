import type { Db } from '../storage/open-database.js';
import type { OptimizationKind, OptimizationStatus } from './optimizations-schema.js';

export interface OptimizationRow {
  id: string;
  org_id: string;
  database_id: string;
  query_id: string | null;
  parent_id: string | null;
  kind: OptimizationKind | null;
  status: OptimizationStatus;
  summary: string | null;
  statement: string | null;
  /** JSON of IndexTarget. */
  target: string | null;
  estimated_improvement_pct: number | null;
  cost_before: number | null;
  cost_after: number | null;
  cost_after_apply: number | null;
  measured_mean_time_ms_before: number | null;
  measured_mean_time_ms_after: number | null;
  confidence: 'high' | 'medium' | 'low' | null;
  /** JSON object. */
  evidence: string | null;
  auto_apply: number;
  error: string | null;
  created_at: string;
  updated_at: string;
  applied_at: string | null;
  applied_ms: number | null;
}

export interface OptimizationFilter {
  database_id?: string | undefined;
  status?: OptimizationStatus | undefined;
}

const columns = [
  'id', 'org_id', 'database_id', 'query_id', 'parent_id', 'kind', 'status', 'summary', 'statement', 'target',
  'estimated_improvement_pct', 'cost_before', 'cost_after', 'cost_after_apply', 'measured_mean_time_ms_before',
  'measured_mean_time_ms_after', 'confidence', 'evidence', 'auto_apply', 'error', 'created_at', 'updated_at', 'applied_at', 'applied_ms',
] as const;

export class OptimizationsRepository {
  readonly #insert;
  readonly #update;
  readonly #byId;
  readonly #byIdAnyOrg;
  readonly #page;
  readonly #count;
  readonly #sameStatement;
  readonly #createdIndexes;
  readonly #awaitingMeasurement;
  readonly #autoApply;
  readonly #setAutoApply;
  readonly #dismissReady;

  constructor(db: Db) {
    this.#insert = db.prepare<OptimizationRow>(
      `INSERT INTO optimizations (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`,
    );
    const mutable = columns.filter((column) => !['id', 'org_id', 'database_id', 'created_at'].includes(column));
    this.#update = db.prepare<OptimizationRow>(
      `UPDATE optimizations SET ${mutable.map((column) => `${column} = @${column}`).join(', ')} WHERE id = @id`,
    );
    this.#byId = db.prepare<[string, string], OptimizationRow>('SELECT * FROM optimizations WHERE org_id = ? AND id = ?');
    this.#byIdAnyOrg = db.prepare<[string], OptimizationRow>('SELECT * FROM optimizations WHERE id = ?');
    const filter = '(@database_id IS NULL OR database_id = @database_id) AND (@status IS NULL OR status = @status)';
    this.#page = db.prepare<{ org_id: string; database_id: string | null; status: string | null; limit: number; offset: number }, OptimizationRow>(
      `SELECT * FROM optimizations WHERE org_id = @org_id AND ${filter} ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset`,
    );
    this.#count = db
      .prepare<{ org_id: string; database_id: string | null; status: string | null }, number>(
        `SELECT count(*) FROM optimizations WHERE org_id = @org_id AND ${filter}`,
      )
      .pluck();
    this.#sameStatement = db
      .prepare<[string, string, string], number>(
        `SELECT count(*) FROM optimizations WHERE database_id = ? AND kind = ? AND statement = ?
           AND status IN ('ready', 'applying', 'applied', 'dismissed')`,
      )
      .pluck();
    this.#createdIndexes = db
      .prepare<[string, string], string>(
        `SELECT target FROM optimizations WHERE database_id = ? AND kind = 'create_index' AND status = 'applied' AND applied_at >= ?`,
      )
      .pluck();
    this.#awaitingMeasurement = db.prepare<[string, number, number], OptimizationRow>(
      `SELECT * FROM optimizations WHERE database_id = ? AND status = 'applied' AND kind = 'create_index'
         AND query_id IS NOT NULL AND applied_ms < ? AND applied_ms >= ?`,
    );
    this.#autoApply = db.prepare<[string], number>('SELECT auto_apply_optimizations FROM organizations WHERE id = ?').pluck();
    this.#setAutoApply = db.prepare<[number, string]>('UPDATE organizations SET auto_apply_optimizations = ? WHERE id = ?');
    this.#dismissReady = db.prepare<{ database_id: string; error: string; at: string }>(
      `UPDATE optimizations SET status = 'dismissed', error = @error, updated_at = @at WHERE database_id = @database_id AND status = 'ready'`,
    );
  }

  insert(row: OptimizationRow): void {
    this.#insert.run(row);
  }

  update(row: OptimizationRow): void {
    this.#update.run(row);
  }

  findById(orgId: string, id: string): OptimizationRow | undefined {
    return this.#byId.get(orgId, id);
  }

  findAnyOrg(id: string): OptimizationRow | undefined {
    return this.#byIdAnyOrg.get(id);
  }

  list(orgId: string, filter: OptimizationFilter, limit: number, offset: number): { rows: OptimizationRow[]; total: number } {
    const where = { org_id: orgId, database_id: filter.database_id ?? null, status: filter.status ?? null };
    return { rows: this.#page.all({ ...where, limit, offset }), total: this.#count.get(where)! };
  }

  /** True when the same statement is already suggested, applied or was dismissed for this database. */
  hasStatement(databaseId: string, kind: OptimizationKind, statement: string): boolean {
    return this.#sameStatement.get(databaseId, kind, statement)! > 0;
  }

  /** Targets (JSON) of the indexes dbmon created on this database since `sinceIso`. */
  indexesCreatedSince(databaseId: string, sinceIso: string): string[] {
    return this.#createdIndexes.all(databaseId, sinceIso);
  }

  /** Applied index suggestions of a database with a statement, applied in [fromMs, toMs). */
  awaitingMeasurement(databaseId: string, fromMs: number, toMs: number): OptimizationRow[] {
    return this.#awaitingMeasurement.all(databaseId, toMs, fromMs);
  }

  /** Marks every ready optimization of a database dismissed, `error` saying why; returns how many. */
  dismissReady(databaseId: string, error: string, at: string): number {
    return this.#dismissReady.run({ database_id: databaseId, error, at }).changes;
  }

  autoApplyAllowed(orgId: string): boolean {
    return this.#autoApply.get(orgId) === 1;
  }

  setAutoApply(orgId: string, allowed: boolean): boolean {
    return this.#setAutoApply.run(Number(allowed), orgId).changes === 1;
  }
}
