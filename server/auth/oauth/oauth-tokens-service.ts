import { checksummedTokenPrefix, hashToken, issueChecksummedToken } from '../../crypto/checksummed-token.js';
import { newId } from '../../crypto/new-id.js';
import { isSecretToken } from '../../crypto/secret-token.js';
import { AuthenticationError, NotFoundError } from '../../errors.js';
import type { Transaction } from '../../storage/open-database.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditOrigin } from '../audit/audit-origin.js';
import { roleAccess } from '../permissions.js';
import type { Principal } from '../principal.js';
import type { OAuthClientRow } from './oauth-applications-repository.js';
import { OAuthError } from './oauth-error.js';
import type { OAuthAuthorizationListRow, OAuthGrantsRepository, OAuthTokenLookupRow } from './oauth-grants-repository.js';
import { parseScopeParameter, scopeText, type OAuthScope } from './oauth-scopes.js';
import { verifierMatches } from './pkce.js';

export const accessTokenPrefix = 'dbm_oat_';
export const refreshTokenPrefix = 'dbm_ort_';
export const accessTokenLifetimeSeconds = 3600;
const refreshTokenLifetimeMs = 30 * 24 * 3600 * 1000;

/** RFC 6749 §5.1. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export interface CodeExchange {
  code: string | undefined;
  redirectUri: string | undefined;
  codeVerifier: string | undefined;
}

export interface Refresh {
  refreshToken: string | undefined;
  scope: string | undefined;
}

/**
 * The token endpoint's grants, revocation, and OAuth access tokens as credentials. A code is
 * exchanged once: its exchange starts a grant, the family of every token issued from it; a replayed
 * code or a reused refresh token revokes that family (RFC 9700 §2.2.2, §4.14.2).
 */
export class OAuthTokensService {
  constructor(
    private readonly grants: OAuthGrantsRepository,
    private readonly audit: AuditLog,
    private readonly transaction: Transaction,
  ) {}

  exchangeCode(client: OAuthClientRow, exchange: CodeExchange, now: Date): TokenResponse {
    const { code, redirectUri, codeVerifier } = exchange;
    if (code === undefined || redirectUri === undefined) throw new OAuthError('invalid_request', 'code and redirect_uri are required');
    const hash = hashToken(code);
    const row = isSecretToken(code) ? this.grants.findCode(hash) : undefined;
    if (row === undefined || row.client_id !== client.client_id) throw invalidGrant('The code is not valid');
    if (row.grant_id !== null) {
      this.grants.revokeGrant(row.grant_id, now.toISOString());
      throw invalidGrant('The code was used before; the tokens issued for it are revoked');
    }
    if (Date.parse(row.expires_at) <= now.getTime()) throw invalidGrant('The code has expired');
    if (row.user_status !== 'active') throw invalidGrant('The user is not active');
    if (redirectUri !== row.redirect_uri) throw invalidGrant('redirect_uri is not the one of the authorization request');
    if (row.code_challenge === null ? codeVerifier !== undefined : codeVerifier === undefined || !verifierMatches(codeVerifier, row.code_challenge)) {
      throw invalidGrant('code_verifier does not match the code_challenge of the authorization request');
    }
    const grantId = newId('grant');
    return this.transaction(() => {
      this.grants.insertGrant(grantId, row.authorization_id, row.scopes, now.toISOString());
      if (!this.grants.useCode(hash, grantId)) throw invalidGrant('The code was used before');
      return this.issue(grantId, row.scopes, row.scopes, now);
    });
  }

  /** Rotation: the refresh token is spent and a new pair issued in the same family; `scope` may ask for fewer scopes, never more. */
  refresh(client: OAuthClientRow, refresh: Refresh, now: Date): TokenResponse {
    if (refresh.refreshToken === undefined) throw new OAuthError('invalid_request', 'refresh_token is required');
    const row = this.lookup(refresh.refreshToken, refreshTokenPrefix);
    if (row === undefined || row.kind !== 'refresh' || row.client_id !== client.client_id) throw invalidGrant('The refresh token is not valid');
    const at = now.toISOString();
    if (row.revoked_at !== null || row.grant_revoked_at !== null) throw invalidGrant('The refresh token has been revoked');
    // Outside any transaction: a refusal must not roll the family's revocation back.
    if (row.used_at !== null) {
      this.grants.revokeGrant(row.grant_id, at);
      throw invalidGrant('The refresh token was used before; its family of tokens is revoked');
    }
    if (row.expires_at !== null && Date.parse(row.expires_at) <= now.getTime()) throw invalidGrant('The refresh token has expired');
    if (row.user_status !== 'active') throw invalidGrant('The user is not active');
    const scopes = refresh.scope === undefined ? row.grant_scopes : this.narrowed(row.grant_scopes, refresh.scope);
    return this.transaction(() => {
      if (!this.grants.useToken(hashToken(refresh.refreshToken!), at)) throw invalidGrant('The refresh token was used before');
      return this.issue(row.grant_id, row.grant_scopes, scopes, now);
    });
  }

  /**
   * RFC 7009: a token of this client is revoked, a refresh token with its whole family; an unknown
   * token, or another client's, is answered the same (200) and left alone.
   */
  revoke(client: OAuthClientRow, token: string, now: Date): void {
    const row = this.lookup(token, accessTokenPrefix) ?? this.lookup(token, refreshTokenPrefix);
    if (row === undefined || row.client_id !== client.client_id) return;
    if (row.kind === 'refresh') this.grants.revokeGrant(row.grant_id, now.toISOString());
    else this.grants.revokeToken(hashToken(token), now.toISOString());
  }

  /** An access token on /v1: the user's role at request time, narrowed to the token's scopes. */
  authenticate(token: string, now: Date): Principal {
    const row = this.lookup(token, accessTokenPrefix);
    if (row === undefined || row.kind !== 'access') throw new AuthenticationError('invalid_access_token', 'The OAuth access token is not valid');
    if (row.revoked_at !== null || row.grant_revoked_at !== null) throw new AuthenticationError('revoked_access_token', 'The OAuth access token has been revoked');
    if (Date.parse(row.expires_at!) <= now.getTime()) throw new AuthenticationError('expired_access_token', `The OAuth access token expired at ${row.expires_at}`);
    if (row.user_status !== 'active') throw new AuthenticationError('invalid_access_token', 'The OAuth access token acts for a user who is not active');
    return {
      orgId: row.org_id,
      plan: row.plan,
      customHourlyLimit: row.custom_hourly_limit,
      actor: { kind: 'user', userId: row.user_id, role: row.user_role },
      credential: { kind: 'oauth_token', id: row.authorization_id, permission: 'write', expiresAt: row.expires_at },
      access: roleAccess(row.user_role),
      scopes: row.scopes.split(' ') as OAuthScope[],
    };
  }

  /** A disabled user's tokens, every family of every application they authorized: re-enabling them brings none back. */
  revokeOfUser(userId: string, at: string): void {
    this.grants.revokeGrantsOfUser(userId, at);
  }

  /** The applications the user has authorized. */
  authorizationsOf(userId: string): OAuthAuthorizationListRow[] {
    return this.grants.authorizationsOfUser(userId);
  }

  /** The user withdraws an application's authorization: its tokens stop working at once. */
  revokeAuthorization(origin: AuditOrigin, userId: string, id: string, now: Date): void {
    this.transaction(() => {
      if (!this.grants.deleteAuthorization(userId, id)) throw new NotFoundError(`No authorization ${id}`, 'id');
      this.audit.record({ origin, action: 'oauth_authorization.revoked', target: { type: 'oauth_authorization', id }, details: { user_id: userId } }, now);
    });
  }

  private lookup(token: string, prefix: string): OAuthTokenLookupRow | undefined {
    return checksummedTokenPrefix(token, [prefix]) === undefined ? undefined : this.grants.findToken(hashToken(token));
  }

  private narrowed(grantScopes: string, requested: string): string {
    const scopes = parseScopeParameter(requested);
    const granted = grantScopes.split(' ');
    if (scopes === undefined || scopes.length === 0 || scopes.some((scope) => !granted.includes(scope))) {
      throw new OAuthError('invalid_scope', 'A refresh may ask for the granted scopes or fewer, never others');
    }
    return scopeText(scopes);
  }

  /** A new pair in the grant's family: the refresh token keeps the grant's scopes, so a narrowed access token narrows no later refresh. */
  private issue(grantId: string, grantScopes: string, scopes: string, now: Date): TokenResponse {
    const access = issueChecksummedToken(accessTokenPrefix);
    const refresh = issueChecksummedToken(refreshTokenPrefix);
    const at = now.toISOString();
    const common = { grant_id: grantId, created_at: at, used_at: null, revoked_at: null };
    const accessExpiresAt = new Date(now.getTime() + accessTokenLifetimeSeconds * 1000).toISOString();
    this.grants.insertToken({ ...common, token_hash: access.hash, kind: 'access', scopes, expires_at: accessExpiresAt });
    const refreshExpiresAt = new Date(now.getTime() + refreshTokenLifetimeMs).toISOString();
    this.grants.insertToken({ ...common, token_hash: refresh.hash, kind: 'refresh', scopes: grantScopes, expires_at: refreshExpiresAt });
    return { access_token: access.value, token_type: 'Bearer', expires_in: accessTokenLifetimeSeconds, refresh_token: refresh.value, scope: scopes };
  }
}

function invalidGrant(description: string): OAuthError {
  return new OAuthError('invalid_grant', description);
}
