import type { Db } from '../../storage/open-database.js';
import type { Plan } from '../identity/plans.js';
import type { UserStatus } from '../identity/user.js';
import type { Role } from '../permissions.js';

export interface OAuthAuthorizationRow {
  id: string;
  application_id: string;
  user_id: string;
  /** Space-separated: every scope the user has granted the application. */
  scopes: string;
  created_at: string;
  updated_at: string;
}

/** A user's authorization as they list it: with the application's name and owner. */
export interface OAuthAuthorizationListRow extends OAuthAuthorizationRow {
  application_name: string;
  client_id: string;
  organization_name: string;
}

export interface OAuthCodeRow {
  code_hash: Buffer;
  authorization_id: string;
  redirect_uri: string;
  scopes: string;
  code_challenge: string | null;
  created_at: string;
  expires_at: string;
  /** The grant its exchange started; null while unused. */
  grant_id: string | null;
}

/** A code with who it was issued to. */
export interface OAuthCodeLookupRow extends OAuthCodeRow {
  client_id: string;
  user_status: UserStatus;
}

export interface OAuthTokenRow {
  token_hash: Buffer;
  kind: 'access' | 'refresh';
  grant_id: string;
  scopes: string;
  created_at: string;
  expires_at: string | null;
  used_at: string | null;
  revoked_at: string | null;
}

/** A token with its grant, the application it was issued to and the user it acts for. */
export interface OAuthTokenLookupRow extends OAuthTokenRow {
  grant_scopes: string;
  grant_revoked_at: string | null;
  authorization_id: string;
  client_id: string;
  user_id: string;
  user_role: Role;
  user_status: UserStatus;
  org_id: string;
  plan: Plan;
  custom_hourly_limit: number | null;
}

export class OAuthGrantsRepository {
  readonly #authorization;
  readonly #upsertAuthorization;
  readonly #userAuthorizations;
  readonly #deleteUserAuthorization;
  readonly #insertCode;
  readonly #code;
  readonly #useCode;
  readonly #deleteExpiredCodes;
  readonly #insertGrant;
  readonly #revokeGrant;
  readonly #revokeGrantsOfUser;
  readonly #insertToken;
  readonly #token;
  readonly #useToken;
  readonly #revokeToken;

  constructor(db: Db) {
    this.#authorization = db.prepare<[string, string], OAuthAuthorizationRow>('SELECT * FROM oauth_authorizations WHERE application_id = ? AND user_id = ?');
    this.#upsertAuthorization = db.prepare<OAuthAuthorizationRow>(
      `INSERT INTO oauth_authorizations (id, application_id, user_id, scopes, created_at, updated_at)
       VALUES (@id, @application_id, @user_id, @scopes, @created_at, @updated_at)
       ON CONFLICT (application_id, user_id) DO UPDATE SET scopes = excluded.scopes, updated_at = excluded.updated_at`,
    );
    this.#userAuthorizations = db.prepare<[string], OAuthAuthorizationListRow>(
      `SELECT z.*, a.name AS application_name, a.client_id, o.name AS organization_name
       FROM oauth_authorizations z JOIN oauth_applications a ON a.id = z.application_id JOIN organizations o ON o.id = a.org_id
       WHERE z.user_id = ? ORDER BY z.created_at, z.id`,
    );
    this.#deleteUserAuthorization = db.prepare<[string, string]>('DELETE FROM oauth_authorizations WHERE user_id = ? AND id = ?');
    this.#insertCode = db.prepare<OAuthCodeRow>(
      `INSERT INTO oauth_codes (code_hash, authorization_id, redirect_uri, scopes, code_challenge, created_at, expires_at, grant_id)
       VALUES (@code_hash, @authorization_id, @redirect_uri, @scopes, @code_challenge, @created_at, @expires_at, @grant_id)`,
    );
    this.#code = db.prepare<[Buffer], OAuthCodeLookupRow>(
      `SELECT c.*, a.client_id, u.status AS user_status FROM oauth_codes c
       JOIN oauth_authorizations z ON z.id = c.authorization_id JOIN oauth_applications a ON a.id = z.application_id
       JOIN users u ON u.id = z.user_id
       WHERE c.code_hash = ?`,
    );
    this.#useCode = db.prepare<[string, Buffer]>('UPDATE oauth_codes SET grant_id = ? WHERE code_hash = ? AND grant_id IS NULL');
    this.#deleteExpiredCodes = db.prepare<[string]>('DELETE FROM oauth_codes WHERE expires_at <= ?');
    this.#insertGrant = db.prepare<[string, string, string, string]>(
      'INSERT INTO oauth_grants (id, authorization_id, scopes, created_at) VALUES (?, ?, ?, ?)',
    );
    this.#revokeGrant = db.prepare<[string, string]>('UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.#revokeGrantsOfUser = db.prepare<[string, string]>(
      'UPDATE oauth_grants SET revoked_at = ? WHERE revoked_at IS NULL AND authorization_id IN (SELECT id FROM oauth_authorizations WHERE user_id = ?)',
    );
    this.#insertToken = db.prepare<OAuthTokenRow>(
      `INSERT INTO oauth_tokens (token_hash, kind, grant_id, scopes, created_at, expires_at, used_at, revoked_at)
       VALUES (@token_hash, @kind, @grant_id, @scopes, @created_at, @expires_at, @used_at, @revoked_at)`,
    );
    this.#token = db.prepare<[Buffer], OAuthTokenLookupRow>(
      `SELECT t.*, g.scopes AS grant_scopes, g.revoked_at AS grant_revoked_at, z.id AS authorization_id, a.client_id,
         u.id AS user_id, u.role AS user_role, u.status AS user_status, u.org_id, o.plan, o.custom_hourly_limit
       FROM oauth_tokens t
       JOIN oauth_grants g ON g.id = t.grant_id
       JOIN oauth_authorizations z ON z.id = g.authorization_id
       JOIN oauth_applications a ON a.id = z.application_id
       JOIN users u ON u.id = z.user_id
       JOIN organizations o ON o.id = u.org_id
       WHERE t.token_hash = ?`,
    );
    this.#useToken = db.prepare<[string, Buffer]>('UPDATE oauth_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL');
    this.#revokeToken = db.prepare<[string, Buffer]>('UPDATE oauth_tokens SET revoked_at = ? WHERE token_hash = ? AND revoked_at IS NULL');
  }

  authorization(applicationId: string, userId: string): OAuthAuthorizationRow | undefined {
    return this.#authorization.get(applicationId, userId);
  }

  /** Records the user's consent (the row keeps its id when it exists) and returns it. */
  saveAuthorization(row: OAuthAuthorizationRow): OAuthAuthorizationRow {
    this.#upsertAuthorization.run(row);
    return this.authorization(row.application_id, row.user_id)!;
  }

  authorizationsOfUser(userId: string): OAuthAuthorizationListRow[] {
    return this.#userAuthorizations.all(userId);
  }

  /** Deletes the user's authorization and, with it, every code, grant and token issued under it. */
  deleteAuthorization(userId: string, id: string): boolean {
    return this.#deleteUserAuthorization.run(userId, id).changes === 1;
  }

  /** Stores a code; codes expired by `now` go at the same time, so the table holds only live and recently used codes. */
  insertCode(row: OAuthCodeRow, now: string): void {
    this.#deleteExpiredCodes.run(now);
    this.#insertCode.run(row);
  }

  findCode(hash: Buffer): OAuthCodeLookupRow | undefined {
    return this.#code.get(hash);
  }

  /** Marks the code exchanged for `grantId`; false when it already was (a replay). */
  useCode(hash: Buffer, grantId: string): boolean {
    return this.#useCode.run(grantId, hash).changes === 1;
  }

  insertGrant(id: string, authorizationId: string, scopes: string, at: string): void {
    this.#insertGrant.run(id, authorizationId, scopes, at);
  }

  /** Revokes the grant: every access and refresh token of its family stops working. */
  revokeGrant(id: string, at: string): void {
    this.#revokeGrant.run(at, id);
  }

  revokeGrantsOfUser(userId: string, at: string): void {
    this.#revokeGrantsOfUser.run(at, userId);
  }

  insertToken(row: OAuthTokenRow): void {
    this.#insertToken.run(row);
  }

  findToken(hash: Buffer): OAuthTokenLookupRow | undefined {
    return this.#token.get(hash);
  }

  /** Marks a refresh token used; false when it already was (a reuse). */
  useToken(hash: Buffer, at: string): boolean {
    return this.#useToken.run(at, hash).changes === 1;
  }

  revokeToken(hash: Buffer, at: string): void {
    this.#revokeToken.run(at, hash);
  }
}
