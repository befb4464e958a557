import type { Db } from '../storage/open-database.js';
import type { DatabaseStatus, DatabaseType } from './databases-schema.js';

export interface DatabaseRow {
  id: string;
  org_id: string;
  name: string;
  type: DatabaseType;
  host: string;
  port: number;
  database_name: string;
  username: string;
  password_encrypted: Buffer | null;
  ssl: number;
  monitoring_enabled: number;
  interval_seconds: number;
  version: string | null;
  status: DatabaseStatus;
  created_at: string;
  updated_at: string;
}

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

  constructor(db: Db) {
    const columns = `id, org_id, name, type, host, port, database_name, username, password_encrypted, ssl,
      monitoring_enabled, interval_seconds, version, status, created_at, updated_at`;
    this.#insert = db.prepare<DatabaseRow>(
      `INSERT INTO databases (${columns}) VALUES (${columns.split(',').map((column) => `@${column.trim()}`).join(', ')})`,
    );
    this.#update = db.prepare<DatabaseRow>(
      `UPDATE databases SET name = @name, type = @type, host = @host, port = @port, database_name = @database_name,
         username = @username, password_encrypted = @password_encrypted, ssl = @ssl,
         monitoring_enabled = @monitoring_enabled, interval_seconds = @interval_seconds, version = @version,
         status = @status, updated_at = @updated_at
       WHERE org_id = @org_id AND id = @id`,
    );
    this.#byId = db.prepare<[string, string], DatabaseRow>('SELECT * FROM databases WHERE org_id = ? AND id = ?');
    const filter = '(@type IS NULL OR type = @type) AND (@status IS NULL OR status = @status)';
    this.#page = db.prepare<{ org_id: string; type: string | null; status: string | null; limit: number; offset: number }, DatabaseRow>(
      `SELECT * FROM databases WHERE org_id = @org_id AND ${filter}
       ORDER BY created_at, id LIMIT @limit OFFSET @offset`,
    );
    this.#count = db
      .prepare<{ org_id: string; type: string | null; status: string | null }, number>(
        `SELECT count(*) FROM databases WHERE org_id = @org_id AND ${filter}`,
      )
      .pluck();
    this.#delete = db.prepare<[string, string]>('DELETE FROM databases WHERE org_id = ? AND id = ?');
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

  list(orgId: string, filter: DatabaseFilter, limit: number, offset: number): { rows: DatabaseRow[]; total: number } {
    const where = { org_id: orgId, type: filter.type ?? null, status: filter.status ?? null };
    return { rows: this.#page.all({ ...where, limit, offset }), total: this.#count.get(where)! };
  }

  delete(orgId: string, id: string): boolean {
    return this.#delete.run(orgId, id).changes === 1;
  }
}
