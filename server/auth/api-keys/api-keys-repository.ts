import type { Db } from '../../storage/open-database.js';
import type { Plan } from '../identity/plans.js';
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
  /** The key this one was made with through the API; null when the operator made it. */
  parent_key_id: string | null;
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
  /** 1 when a key it was made through (parent, grandparent...) is revoked. */
  ancestor_revoked: 0 | 1;
  /** The earliest expiry among the keys it was made through. */
  ancestor_expires_at: string | null;
}

/** Which keys a caller may see: null columns are not narrowed on. */
export interface KeyVisibility {
  user_id: string | null;
  service_account_id: string | null;
}

const listColumns = `k.id, k.org_id, k.name, k.kind, k.user_id, k.service_account_id, k.permission, k.scopes,
  k.prefix, k.last4, k.expires_at, k.last_used_at, k.created_at, k.revoked_at, k.parent_key_id, sa.name AS service_account_name`;

export class ApiKeysRepository {
  readonly #insert;
  readonly #forAuth;
  readonly #touch;
  readonly #byId;
  readonly #anyById;
  readonly #page;
  readonly #count;
  readonly #countLive;
  readonly #revoke;
  readonly #revokeDescendants;
  readonly #insertWithinCap;
  readonly #revokeWithDescendants;
  readonly #all;
  readonly #revokeOfUser;

  constructor(db: Db) {
    this.#insert = db.prepare<ApiKeyRow>(
      `INSERT INTO api_keys (id, org_id, name, kind, user_id, service_account_id, permission, scopes, token_hash,
         prefix, last4, expires_at, last_used_at, created_at, revoked_at, parent_key_id)
       VALUES (@id, @org_id, @name, @kind, @user_id, @service_account_id, @permission, @scopes, @token_hash,
         @prefix, @last4, @expires_at, @last_used_at, @created_at, @revoked_at, @parent_key_id)`,
    );
    // UNION (not UNION ALL) ends the walk even on a hand-made cycle.
    this.#forAuth = db.prepare<{ hash: Buffer }, ApiKeyAuthRow>(
      `WITH RECURSIVE ancestors (id, parent_key_id, revoked_at, expires_at) AS (
         SELECT p.id, p.parent_key_id, p.revoked_at, p.expires_at
         FROM api_keys k JOIN api_keys p ON p.id = k.parent_key_id WHERE k.token_hash = @hash
         UNION
         SELECT p.id, p.parent_key_id, p.revoked_at, p.expires_at FROM api_keys p JOIN ancestors a ON p.id = a.parent_key_id
       )
       SELECT k.id, k.org_id, k.kind, k.user_id, k.service_account_id, k.permission, k.scopes, k.expires_at,
         k.last_used_at, k.revoked_at, o.plan, o.custom_hourly_limit, u.role AS user_role,
         sa.permission AS service_account_permission,
         EXISTS (SELECT 1 FROM ancestors WHERE revoked_at IS NOT NULL) AS ancestor_revoked,
         (SELECT expires_at FROM ancestors WHERE expires_at IS NOT NULL ORDER BY julianday(expires_at) LIMIT 1) AS ancestor_expires_at
       FROM api_keys k
       JOIN organizations o ON o.id = k.org_id
       LEFT JOIN users u ON u.id = k.user_id
       LEFT JOIN service_accounts sa ON sa.id = k.service_account_id
       WHERE k.token_hash = @hash`,
    );
    this.#touch = db.prepare<[string, string]>('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
    const owner = '(@user_id IS NULL OR k.user_id = @user_id) AND (@service_account_id IS NULL OR k.service_account_id = @service_account_id)';
    this.#byId = db.prepare<KeyVisibility & { org_id: string; id: string }, ApiKeyListRow>(
      `SELECT ${listColumns} FROM api_keys k LEFT JOIN service_accounts sa ON sa.id = k.service_account_id
       WHERE k.org_id = @org_id AND k.id = @id AND ${owner}`,
    );
    this.#anyById = db.prepare<[string], ApiKeyListRow>(
      `SELECT ${listColumns} FROM api_keys k LEFT JOIN service_accounts sa ON sa.id = k.service_account_id WHERE k.id = ?`,
    );
    this.#page = db.prepare<KeyVisibility & { org_id: string; limit: number; offset: number }, ApiKeyListRow>(
      `SELECT ${listColumns} FROM api_keys k LEFT JOIN service_accounts sa ON sa.id = k.service_account_id
       WHERE k.org_id = @org_id AND ${owner}
       ORDER BY k.created_at DESC, k.id DESC LIMIT @limit OFFSET @offset`,
    );
    this.#count = db
      .prepare<KeyVisibility & { org_id: string }, number>(`SELECT count(*) FROM api_keys k WHERE k.org_id = @org_id AND ${owner}`)
      .pluck();
    this.#countLive = db
      .prepare<[string, string], number>(
        `SELECT count(*) FROM api_keys
         WHERE org_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR julianday(expires_at) > julianday(?))`,
      )
      .pluck();
    this.#all = db.prepare<{ org_id: string | null }, ApiKeyListRow>(
      `SELECT ${listColumns} FROM api_keys k LEFT JOIN service_accounts sa ON sa.id = k.service_account_id
       WHERE @org_id IS NULL OR k.org_id = @org_id ORDER BY k.org_id, k.created_at, k.id`,
    );
    this.#revokeOfUser = db.prepare<[string, string]>('UPDATE api_keys SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL');
    this.#revoke = db.prepare<[string, string]>('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.#revokeDescendants = db.prepare<{ id: string; at: string }>(
      `WITH RECURSIVE descendants (id) AS (
         SELECT id FROM api_keys WHERE parent_key_id = @id
         UNION
         SELECT k.id FROM api_keys k JOIN descendants d ON k.parent_key_id = d.id
       )
       UPDATE api_keys SET revoked_at = @at WHERE id IN (SELECT id FROM descendants) AND revoked_at IS NULL`,
    );
    this.#insertWithinCap = db.transaction((row: ApiKeyRow, maxLive: number): boolean => {
      if (this.#countLive.get(row.org_id, row.created_at)! >= maxLive) return false;
      this.#insert.run(row);
      return true;
    });
    this.#revokeWithDescendants = db.transaction((id: string, at: string): boolean => {
      if (this.#revoke.run(at, id).changes !== 1) return false;
      this.#revokeDescendants.run({ id, at });
      return true;
    });
  }

  /** Inserts unless the organization already has `maxLive` keys neither revoked nor expired at `row.created_at`. */
  insertWithinCap(row: ApiKeyRow, maxLive: number): boolean {
    return this.#insertWithinCap(row, maxLive);
  }

  findForAuth(hash: Buffer): ApiKeyAuthRow | undefined {
    return this.#forAuth.get({ hash });
  }

  touch(id: string, at: string): void {
    this.#touch.run(at, id);
  }

  findVisible(orgId: string, id: string, visibility: KeyVisibility): ApiKeyListRow | undefined {
    return this.#byId.get({ ...visibility, org_id: orgId, id });
  }

  findById(id: string): ApiKeyListRow | undefined {
    return this.#anyById.get(id);
  }

  listVisible(orgId: string, visibility: KeyVisibility, limit: number, offset: number): { rows: ApiKeyListRow[]; total: number } {
    const filter = { ...visibility, org_id: orgId };
    return { rows: this.#page.all({ ...filter, limit, offset }), total: this.#count.get(filter)! };
  }

  /** Every key of one organization, or of all of them (null), revoked and expired ones included. */
  all(orgId: string | null): ApiKeyListRow[] {
    return this.#all.all({ org_id: orgId });
  }

  /** Revokes every personal token of the user; keys made through them fail authentication with them (their ancestor is revoked). */
  revokeOfUser(userId: string, at: string): void {
    this.#revokeOfUser.run(at, userId);
  }

  /** Revokes the key and every key made through it, transitively; false when the key was already revoked. */
  revoke(id: string, at: string): boolean {
    return this.#revokeWithDescendants(id, at);
  }
}
