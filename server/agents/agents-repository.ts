import type { Db } from '../storage/open-database.js';
import type { AgentRow } from './agent-row.js';

export class AgentsRepository {
  readonly #insert;
  readonly #byKey;
  readonly #byId;
  readonly #seen;
  readonly #page;
  readonly #count;
  readonly #all;
  readonly #setDropped;

  constructor(db: Db) {
    this.#insert = db.prepare<AgentRow>(
      `INSERT INTO agents (id, org_id, api_key_id, name, hostname, version, spool_dropped_total, last_seen_at, created_at)
       VALUES (@id, @org_id, @api_key_id, @name, @hostname, @version, @spool_dropped_total, @last_seen_at, @created_at)`,
    );
    this.#byKey = db.prepare<[string], AgentRow>('SELECT * FROM agents WHERE api_key_id = ?');
    this.#byId = db.prepare<[string, string], AgentRow>('SELECT * FROM agents WHERE org_id = ? AND id = ?');
    this.#seen = db.prepare<{ id: string; hostname: string | null; version: string | null; last_seen_at: string }>(
      `UPDATE agents SET hostname = coalesce(@hostname, hostname), version = coalesce(@version, version),
         last_seen_at = @last_seen_at WHERE id = @id`,
    );
    this.#page = db.prepare<{ org_id: string; limit: number; offset: number }, AgentRow>(
      'SELECT * FROM agents WHERE org_id = @org_id ORDER BY created_at, id LIMIT @limit OFFSET @offset',
    );
    this.#count = db.prepare<[string], number>('SELECT count(*) FROM agents WHERE org_id = ?').pluck();
    this.#all = db.prepare<[], AgentRow>('SELECT * FROM agents');
    this.#setDropped = db.prepare<[number, string]>('UPDATE agents SET spool_dropped_total = ? WHERE id = ?');
  }

  insert(row: AgentRow): void {
    this.#insert.run(row);
  }

  findByApiKey(apiKeyId: string): AgentRow | undefined {
    return this.#byKey.get(apiKeyId);
  }

  findById(orgId: string, id: string): AgentRow | undefined {
    return this.#byId.get(orgId, id);
  }

  markSeen(id: string, hostname: string | null, version: string | null, at: string): void {
    this.#seen.run({ id, hostname, version, last_seen_at: at });
  }

  setSpoolDropped(id: string, total: number): void {
    this.#setDropped.run(total, id);
  }

  list(orgId: string, limit: number, offset: number): { rows: AgentRow[]; total: number } {
    return { rows: this.#page.all({ org_id: orgId, limit, offset }), total: this.#count.get(orgId)! };
  }

  all(): AgentRow[] {
    return this.#all.all();
  }
}
