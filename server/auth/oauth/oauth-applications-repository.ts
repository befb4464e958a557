import type { Db } from '../../storage/open-database.js';

export interface OAuthApplicationRow {
  id: string;
  org_id: string;
  name: string;
  client_id: string;
  client_secret_hash: Buffer | null;
  confidential: 0 | 1;
  /** JSON arrays. */
  redirect_uris: string;
  scopes: string;
  created_at: string;
}

export type OAuthApplicationListRow = Omit<OAuthApplicationRow, 'client_secret_hash'>;

/** An application as the authorize and token endpoints see it: with its owner organization's name. */
export interface OAuthClientRow extends OAuthApplicationRow {
  organization_name: string;
}

const listColumns = 'id, org_id, name, client_id, confidential, redirect_uris, scopes, created_at';

export class OAuthApplicationsRepository {
  readonly #insert;
  readonly #byId;
  readonly #page;
  readonly #count;
  readonly #delete;
  readonly #byClientId;

  constructor(db: Db) {
    this.#insert = db.prepare<OAuthApplicationRow>(
      `INSERT INTO oauth_applications (id, org_id, name, client_id, client_secret_hash, confidential, redirect_uris, scopes, created_at)
       VALUES (@id, @org_id, @name, @client_id, @client_secret_hash, @confidential, @redirect_uris, @scopes, @created_at)`,
    );
    this.#byId = db.prepare<[string, string], OAuthApplicationListRow>(`SELECT ${listColumns} FROM oauth_applications WHERE org_id = ? AND id = ?`);
    this.#page = db.prepare<[string, number, number], OAuthApplicationListRow>(
      `SELECT ${listColumns} FROM oauth_applications WHERE org_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
    );
    this.#count = db.prepare<[string], number>('SELECT count(*) FROM oauth_applications WHERE org_id = ?').pluck();
    this.#delete = db.prepare<[string, string]>('DELETE FROM oauth_applications WHERE org_id = ? AND id = ?');
    this.#byClientId = db.prepare<[string], OAuthClientRow>(
      `SELECT a.*, o.name AS organization_name FROM oauth_applications a JOIN organizations o ON o.id = a.org_id WHERE a.client_id = ?`,
    );
  }

  insert(row: OAuthApplicationRow): void {
    this.#insert.run(row);
  }

  find(orgId: string, id: string): OAuthApplicationListRow | undefined {
    return this.#byId.get(orgId, id);
  }

  list(orgId: string, limit: number, offset: number): { rows: OAuthApplicationListRow[]; total: number } {
    return { rows: this.#page.all(orgId, limit, offset), total: this.#count.get(orgId)! };
  }

  /** Deletes the application with every authorization, code and token issued to it. */
  delete(orgId: string, id: string): boolean {
    return this.#delete.run(orgId, id).changes === 1;
  }

  findClient(clientId: string): OAuthClientRow | undefined {
    return this.#byClientId.get(clientId);
  }
}
