import type { DatabaseType } from '../../common/agent-protocol/database-types.js';
import type { Db } from '../storage/open-database.js';
import type { DatabaseRow, LastError } from './database-row.js';
import type { DatabaseStatus } from './databases-schema.js';

/** A row as lists read it: whether a password is set, never the ciphertext. */
export type DatabaseSummary = Omit<DatabaseRow, 'password_encrypted'> & { password_set: number };

export interface DatabaseFilter {
  type?: DatabaseType | undefined;
  status?: DatabaseStatus | undefined;
}

export class DatabasesRepository {
  readonly #insert;
  readonly #update;
  readonly #byId;
  readonly #page;
  readonly #count;
  readonly #delete;
  readonly #assignedTo;
  readonly #assignedToEmbedded;
  readonly #byIdAnyOrg;
  readonly #observe;
  readonly #observeError;
  readonly #all;
  readonly #ids;
  readonly #setStatus;

  constructor(db: Db) {
    const columns = `id, org_id, name, type, host, port, database_name, username, password_encrypted, ssl,
      monitoring_enabled, interval_seconds, agent_id, version, status, created_at, updated_at`;
    this.#insert = db.prepare<DatabaseRow>(
      `INSERT INTO databases (${columns}) VALUES (${columns.split(',').map((column) => `@${column.trim()}`).join(', ')})`,
    );
    this.#update = db.prepare<DatabaseRow>(
      `UPDATE databases SET name = @name, type = @type, host = @host, port = @port, database_name = @database_name,
         username = @username, password_encrypted = @password_encrypted, ssl = @ssl,
         monitoring_enabled = @monitoring_enabled, interval_seconds = @interval_seconds, agent_id = @agent_id, version = @version,
         status = @status, updated_at = @updated_at
       WHERE org_id = @org_id AND id = @id`,
    );
    this.#byId = db.prepare<[string, string], DatabaseRow>('SELECT * FROM databases WHERE org_id = ? AND id = ?');
    const filter = '(@type IS NULL OR type = @type) AND (@status IS NULL OR status = @status)';
    const summaryColumns = `id, org_id, name, type, host, port, database_name, username, ssl, monitoring_enabled,
      interval_seconds, agent_id, version, status, created_at, updated_at, last_error_code, last_error_message, last_error_at,
      password_encrypted IS NOT NULL AS password_set`;
    this.#page = db.prepare<{ org_id: string; type: string | null; status: string | null; limit: number; offset: number }, DatabaseSummary>(
      `SELECT ${summaryColumns} FROM databases WHERE org_id = @org_id AND ${filter}
       ORDER BY created_at, id LIMIT @limit OFFSET @offset`,
    );
    this.#count = db
      .prepare<{ org_id: string; type: string | null; status: string | null }, number>(
        `SELECT count(*) FROM databases WHERE org_id = @org_id AND ${filter}`,
      )
      .pluck();
    this.#delete = db.prepare<[string, string]>('DELETE FROM databases WHERE org_id = ? AND id = ?');
    this.#assignedTo = db.prepare<[string], DatabaseRow>(
      'SELECT * FROM databases WHERE agent_id = ? AND monitoring_enabled = 1 ORDER BY created_at, id',
    );
    this.#assignedToEmbedded = db.prepare<[], DatabaseRow>(
      'SELECT * FROM databases WHERE agent_id IS NULL AND monitoring_enabled = 1 ORDER BY created_at, id',
    );
    this.#all = db.prepare<[], DatabaseRow>('SELECT * FROM databases ORDER BY created_at, id');
    this.#ids = db.prepare<[], string>('SELECT id FROM databases').pluck();
    this.#byIdAnyOrg = db.prepare<[string], DatabaseRow>('SELECT * FROM databases WHERE id = ?');
    // Status is not set here: alert evaluation derives it (database-status.ts) in the same ingest transaction.
    // Writes only a change: every write moves the databases generation and empties the list cache.
    this.#observe = db.prepare<{ id: string; version: string | null }>(
      'UPDATE databases SET version = @version WHERE id = @id AND @version IS NOT NULL AND version IS NOT @version',
    );
    // `at` stays while the same error repeats: it says since when the collections fail so.
    this.#observeError = db.prepare<{ id: string; code: string | null; message: string | null; at: string | null }>(
      `UPDATE databases SET last_error_code = @code, last_error_message = @message, last_error_at = @at
       WHERE id = @id AND (last_error_code IS NOT @code OR last_error_message IS NOT @message)`,
    );
    this.#setStatus = db.prepare<[DatabaseStatus, string]>('UPDATE databases SET status = ? WHERE id = ?');
  }

  insert(row: DatabaseRow): void {
    this.#insert.run(row);
  }

  update(row: DatabaseRow): void {
    this.#update.run(row);
  }

  findById(orgId: string, id: string): DatabaseRow | undefined {
    return this.#byId.get(orgId, id);
  }

  list(orgId: string, filter: DatabaseFilter, limit: number, offset: number): { rows: DatabaseSummary[]; total: number } {
    const where = { org_id: orgId, type: filter.type ?? null, status: filter.status ?? null };
    return { rows: this.#page.all({ ...where, limit, offset }), total: this.#count.get(where)! };
  }

  /** Databases an agent collects; `null` is the server's embedded agent, which takes the unassigned ones. */
  assignedTo(agentId: string | null): DatabaseRow[] {
    return agentId === null ? this.#assignedToEmbedded.all() : this.#assignedTo.all(agentId);
  }

  /** Every database's id, in no particular order: what background passes walk. */
  ids(): string[] {
    return this.#ids.all();
  }

  all(): DatabaseRow[] {
    return this.#all.all();
  }

  findAnyOrg(id: string): DatabaseRow | undefined {
    return this.#byIdAnyOrg.get(id);
  }

  /** Notes the engine version a collection reported and why it failed (null: it did not); the status follows from alert evaluation. */
  recordCollection(id: string, version: string | null, lastError: LastError | null): void {
    this.#observe.run({ id, version });
    this.#observeError.run({ id, code: lastError?.code ?? null, message: lastError?.message ?? null, at: lastError?.at ?? null });
  }

  /** Only AlertEvaluationService calls this: it derives the status and records the change as an event. */
  setStatus(id: string, status: DatabaseStatus): void {
    this.#setStatus.run(status, id);
  }

  delete(orgId: string, id: string): boolean {
    return this.#delete.run(orgId, id).changes === 1;
  }
}
