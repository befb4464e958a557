import type { Db } from '../../storage/open-database.js';
import type { Plan } from '../identity/organizations-repository.js';
import type { Access, Role } from '../permissions.js';
import type { ApiKeyKind } from './api-key-token.js';

export interface ApiKeyRow {
  id: string;
  org_id: string;
  name: string;
  kind: ApiKeyKind;
  user_id: string | null;
  service_account_id: string | null;
  permission: Access;
  scopes: string;
  token_hash: Buffer;
  prefix: string;
  last4: string;
  expires_at: string | null;
  last_used_at: string | null;
  created_at: string;
  revoked_at: string | null;
}

export interface ApiKeyListRow extends Omit<ApiKeyRow, 'token_hash'> {
  service_account_name: string | null;
}

export interface ApiKeyAuthRow
  extends Pick<ApiKeyRow, 'id' | 'org_id' | 'kind' | 'user_id' | 'service_account_id' | 'permission' | 'scopes' | 'expires_at' | 'last_used_at' | 'revoked_at'> {
  plan: Plan;
  custom_hourly_limit: number | null;
  user_role: Role | null;
  service_account_permission: Access | null;
}

const listColumns = `k.id, k.org_id, k.name, k.kind, k.user_id, k.service_account_id, k.permission, k.scopes,
  k.prefix, k.last4, k.expires_at, k.last_used_at, k.created_at, k.revoked_at, sa.name AS service_account_name`;

export class ApiKeysRepository {
  readonly #insert;
  readonly #forAuth;
  readonly #touch;
  readonly #byId;
  readonly #anyById;
  readonly #page;
  readonly #count;
  readonly #revoke;
  readonly #all;

  constructor(db: Db) {
    this.#insert = db.prepare<ApiKeyRow>(
      `INSERT INTO api_keys (id, org_id, name, kind, user_id, service_account_id, permission, scopes, token_hash,
         prefix, last4, expires_at, last_used_at, created_at, revoked_at)
       VALUES (@id, @org_id, @name, @kind, @user_id, @service_account_id, @permission, @scopes, @token_hash,
         @prefix, @last4, @expires_at, @last_used_at, @created_at, @revoked_at)`,
    );
    this.#forAuth = db.prepare<[Buffer], ApiKeyAuthRow>(
      `SELECT k.id, k.org_id, k.kind, k.user_id, k.service_account_id, k.permission, k.scopes, k.expires_at,
         k.last_used_at, k.revoked_at, o.plan, o.custom_hourly_limit, u.role AS user_role,
         sa.permission AS service_account_permission
       FROM api_keys k
       JOIN organizations o ON o.id = k.org_id
       LEFT JOIN users u ON u.id = k.user_id
       LEFT JOIN service_accounts sa ON sa.id = k.service_account_id
       WHERE k.token_hash = ?`,
    );
    this.#touch = db.prepare<[string, string]>('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
    const owner = '(@user_id IS NULL OR k.user_id = @user_id)';
    this.#byId = db.prepare<{ org_id: string; id: string; user_id: string | null }, ApiKeyListRow>(
      `SELECT ${listColumns} FROM api_keys k LEFT JOIN service_accounts sa ON sa.id = k.service_account_id
       WHERE k.org_id = @org_id AND k.id = @id AND ${owner}`,
    );
    this.#anyById = db.prepare<[string], ApiKeyListRow>(
      `SELECT ${listColumns} FROM api_keys k LEFT JOIN service_accounts sa ON sa.id = k.service_account_id WHERE k.id = ?`,
    );
    this.#page = db.prepare<{ org_id: string; user_id: string | null; limit: number; offset: number }, ApiKeyListRow>(
      `SELECT ${listColumns} FROM api_keys k LEFT JOIN service_accounts sa ON sa.id = k.service_account_id
       WHERE k.org_id = @org_id AND ${owner}
       ORDER BY k.created_at DESC, k.id DESC LIMIT @limit OFFSET @offset`,
    );
    this.#count = db
      .prepare<{ org_id: string; user_id: string | null }, number>(
        `SELECT count(*) FROM api_keys k WHERE k.org_id = @org_id AND ${owner}`,
      )
      .pluck();
    this.#all = db.prepare<{ org_id: string | null }, ApiKeyListRow>(
      `SELECT ${listColumns} FROM api_keys k LEFT JOIN service_accounts sa ON sa.id = k.service_account_id
       WHERE @org_id IS NULL OR k.org_id = @org_id ORDER BY k.org_id, k.created_at, k.id`,
    );
    this.#revoke = db.prepare<[string, string]>('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  }

  insert(row: ApiKeyRow): void {
    this.#insert.run(row);
  }

  findForAuth(hash: Buffer): ApiKeyAuthRow | undefined {
    return this.#forAuth.get(hash);
  }

  touch(id: string, at: string): void {
    this.#touch.run(at, id);
  }

  /** `userId` narrows to one user's keys; null sees the whole organization. */
  findVisible(orgId: string, id: string, userId: string | null): ApiKeyListRow | undefined {
    return this.#byId.get({ org_id: orgId, id, user_id: userId });
  }

  findById(id: string): ApiKeyListRow | undefined {
    return this.#anyById.get(id);
  }

  listVisible(orgId: string, userId: string | null, limit: number, offset: number): { rows: ApiKeyListRow[]; total: number } {
    const filter = { org_id: orgId, user_id: userId };
    return { rows: this.#page.all({ ...filter, limit, offset }), total: this.#count.get(filter)! };
  }

  /** Every key of one organization, or of all of them (null), revoked and expired ones included. */
  all(orgId: string | null): ApiKeyListRow[] {
    return this.#all.all({ org_id: orgId });
  }

  revoke(id: string, at: string): boolean {
    return this.#revoke.run(at, id).changes === 1;
  }
}
