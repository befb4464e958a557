import type { Db } from '../storage/open-database.js';
import type { SpoolReport } from '../metrics/ingest-service.js';
import type { AgentRow } from './agent-row.js';

export class AgentsRepository {
  readonly #insert;
  readonly #byKey;
  readonly #byId;
  readonly #seen;
  readonly #page;
  readonly #count;
  readonly #all;
  readonly #recordSpool;

  constructor(db: Db) {
    this.#insert = db.prepare<AgentRow>(
      `INSERT INTO agents (id, org_id, api_key_id, name, hostname, version, spool_dropped_total, spool_batches, spool_oldest_batch_at, last_seen_at, created_at)
       VALUES (@id, @org_id, @api_key_id, @name, @hostname, @version, @spool_dropped_total, @spool_batches, @spool_oldest_batch_at, @last_seen_at, @created_at)`,
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
    // What a batch does not state stays as last stated; the oldest batch time goes with the depth.
    this.#recordSpool = db.prepare<SpoolReport & { id: string }>(
      `UPDATE agents SET spool_dropped_total = coalesce(@dropped_total, spool_dropped_total),
         spool_batches = coalesce(@batches, spool_batches),
         spool_oldest_batch_at = CASE WHEN @batches IS NULL THEN spool_oldest_batch_at ELSE @oldest_batch_at END
       WHERE id = @id`,
    );
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

  recordSpool(id: string, report: SpoolReport): void {
    this.#recordSpool.run({ id, ...report });
  }

  list(orgId: string, limit: number, offset: number): { rows: AgentRow[]; total: number } {
    return { rows: this.#page.all({ org_id: orgId, limit, offset }), total: this.#count.get(orgId)! };
  }

  all(): AgentRow[] {
    return this.#all.all();
  }
}
