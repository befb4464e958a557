import type { Db } from '../storage/open-database.js';

export interface WebhookRow {
  id: string;
  org_id: string;
  url: string;
  description: string;
  /** JSON array of event types, `*` for all. */
  event_types: string;
  secret_encrypted: Buffer;
  enabled: number;
  disabled_reason: 'gone' | null;
  created_at: string;
  updated_at: string;
}

const columns = [
  'id', 'org_id', 'url', 'description', 'event_types', 'secret_encrypted', 'enabled', 'disabled_reason', 'created_at', 'updated_at',
] as const;

export class WebhooksRepository {
  readonly #insert;
  readonly #update;
  readonly #byId;
  readonly #page;
  readonly #count;
  readonly #delete;
  readonly #enabledOf;
  readonly #disable;

  constructor(db: Db) {
    this.#insert = db.prepare<WebhookRow>(
      `INSERT INTO webhooks (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`,
    );
    this.#update = db.prepare<WebhookRow>(
      `UPDATE webhooks SET url = @url, description = @description, event_types = @event_types, enabled = @enabled,
         disabled_reason = @disabled_reason, updated_at = @updated_at
       WHERE org_id = @org_id AND id = @id`,
    );
    this.#byId = db.prepare<[string, string], WebhookRow>('SELECT * FROM webhooks WHERE org_id = ? AND id = ?');
    this.#page = db.prepare<[string, number, number], WebhookRow>(
      'SELECT * FROM webhooks WHERE org_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?',
    );
    this.#count = db.prepare<[string], number>('SELECT count(*) FROM webhooks WHERE org_id = ?').pluck();
    this.#delete = db.prepare<[string, string]>('DELETE FROM webhooks WHERE org_id = ? AND id = ?');
    this.#enabledOf = db.prepare<[string], WebhookRow>('SELECT * FROM webhooks WHERE org_id = ? AND enabled = 1 ORDER BY created_at, id');
    this.#disable = db.prepare<[string, string, string]>(
      'UPDATE webhooks SET enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ?',
    );
  }

  insert(row: WebhookRow): void {
    this.#insert.run(row);
  }

  update(row: WebhookRow): void {
    this.#update.run(row);
  }

  findById(orgId: string, id: string): WebhookRow | undefined {
    return this.#byId.get(orgId, id);
  }

  list(orgId: string, limit: number, offset: number): { rows: WebhookRow[]; total: number } {
    return { rows: this.#page.all(orgId, limit, offset), total: this.#count.get(orgId)! };
  }

  delete(orgId: string, id: string): boolean {
    return this.#delete.run(orgId, id).changes === 1;
  }

  enabledOf(orgId: string): WebhookRow[] {
    return this.#enabledOf.all(orgId);
  }

  disable(id: string, reason: 'gone', at: string): void {
    this.#disable.run(reason, at, id);
  }
}
