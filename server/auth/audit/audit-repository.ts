import type { Db } from '../../storage/open-database.js';
import type { AuditActorType } from './audit-origin.js';

export interface AuditRow {
  id: string;
  org_id: string;
  created_at: string;
  action: string;
  actor_type: AuditActorType | null;
  actor_id: string | null;
  credential_type: string | null;
  credential_id: string | null;
  target_type: string | null;
  target_id: string | null;
  ip: string | null;
  user_agent: string | null;
  /** A JSON object. */
  details: string;
}

export interface AuditFilter {
  org_id: string;
  actor: string | null;
  action: string | null;
  /** ISO 8601 in UTC (as stored), inclusive. */
  from: string | null;
  /** ISO 8601 in UTC, exclusive. */
  to: string | null;
}

const matching = `org_id = @org_id AND (@actor IS NULL OR actor_id = @actor) AND (@action IS NULL OR action = @action)
  AND (@from IS NULL OR created_at >= @from) AND (@to IS NULL OR created_at < @to)`;

export class AuditRepository {
  readonly #insert;
  readonly #page;
  readonly #count;
  readonly #expire;

  constructor(db: Db) {
    this.#insert = db.prepare<AuditRow>(
      `INSERT INTO audit_log (id, org_id, created_at, action, actor_type, actor_id, credential_type, credential_id,
         target_type, target_id, ip, user_agent, details)
       VALUES (@id, @org_id, @created_at, @action, @actor_type, @actor_id, @credential_type, @credential_id,
         @target_type, @target_id, @ip, @user_agent, @details)`,
    );
    this.#page = db.prepare<AuditFilter & { limit: number; offset: number }, AuditRow>(
      `SELECT id, org_id, created_at, action, actor_type, actor_id, credential_type, credential_id, target_type, target_id, ip, user_agent, details
       FROM audit_log WHERE ${matching} ORDER BY created_at DESC, seq DESC LIMIT @limit OFFSET @offset`,
    );
    this.#count = db.prepare<AuditFilter, number>(`SELECT count(*) FROM audit_log WHERE ${matching}`).pluck();
    this.#expire = db.prepare<{ before: string; limit: number }>(
      'DELETE FROM audit_log WHERE seq IN (SELECT seq FROM audit_log WHERE created_at < @before ORDER BY created_at LIMIT @limit)',
    );
  }

  insert(row: AuditRow): void {
    this.#insert.run(row);
  }

  /** Newest first. */
  list(filter: AuditFilter, limit: number, offset: number): { rows: AuditRow[]; total: number } {
    return { rows: this.#page.all({ ...filter, limit, offset }), total: this.#count.get(filter)! };
  }

  /** Deletes up to `limit` of the oldest rows written before `before`; the number deleted. */
  expire(before: string, limit: number): number {
    return this.#expire.run({ before, limit }).changes;
  }
}
