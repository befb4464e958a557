import { checksummedTokenPrefix, hashToken, issueChecksummedToken } from '../../crypto/checksummed-token.js';
import { randomBase62 } from '../../crypto/base62.js';
import { newId } from '../../crypto/new-id.js';
import { sameSecret } from '../../crypto/same-secret.js';
import { NotFoundError } from '../../errors.js';
import type { Transaction } from '../../storage/open-database.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditOrigin } from '../audit/audit-origin.js';
import type { OAuthApplicationListRow, OAuthApplicationRow, OAuthApplicationsRepository, OAuthClientRow } from './oauth-applications-repository.js';
import { OAuthError } from './oauth-error.js';
import { defaultOAuthScopes, type OAuthScope } from './oauth-scopes.js';

export const clientSecretPrefix = 'dbm_ocs_';

export interface NewOAuthApplication {
  name: string;
  redirect_uris: string[];
  confidential: boolean;
  scopes?: OAuthScope[] | undefined;
}

/** What a client presents at the token and revocation endpoints (RFC 6749 §2.3.1: HTTP Basic or the form). */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string | undefined;
}

/** Applications registered by an organization's admins, and the authentication of their clients. */
export class OAuthApplicationsService {
  constructor(
    private readonly applications: OAuthApplicationsRepository,
    private readonly audit: AuditLog,
    private readonly transaction: Transaction,
  ) {}

  /** Registers an application; a confidential one's secret is in the answer this once, and only its hash is kept. */
  register(origin: AuditOrigin, input: NewOAuthApplication, now: Date): { row: OAuthApplicationListRow; clientSecret: string | undefined } {
    const secret = input.confidential ? issueChecksummedToken(clientSecretPrefix) : undefined;
    const row: OAuthApplicationRow = {
      id: newId('app'),
      org_id: origin.orgId,
      name: input.name,
      client_id: randomBase62(32),
      client_secret_hash: secret?.hash ?? null,
      confidential: input.confidential ? 1 : 0,
      redirect_uris: JSON.stringify(input.redirect_uris),
      scopes: JSON.stringify(input.scopes ?? defaultOAuthScopes),
      created_at: now.toISOString(),
    };
    return this.transaction(() => {
      this.applications.insert(row);
      const { name, confidential, client_id } = row;
      const details = { name, confidential: confidential === 1, client_id, redirect_uris: input.redirect_uris, scopes: JSON.parse(row.scopes) as OAuthScope[] };
      this.audit.record({ origin, action: 'oauth_application.created', target: { type: 'oauth_application', id: row.id }, details }, now);
      return { row: this.applications.find(origin.orgId, row.id)!, clientSecret: secret?.value };
    });
  }

  list(orgId: string, limit: number, offset: number): { rows: OAuthApplicationListRow[]; total: number } {
    return this.applications.list(orgId, limit, offset);
  }

  get(orgId: string, id: string): OAuthApplicationListRow {
    const row = this.applications.find(orgId, id);
    if (row === undefined) throw new NotFoundError(`No OAuth application ${id}`, 'id');
    return row;
  }

  /** Deletes the application: every user's authorization of it and every token it holds end with it. */
  delete(origin: AuditOrigin, id: string, now: Date): void {
    const row = this.get(origin.orgId, id);
    this.transaction(() => {
      this.applications.delete(origin.orgId, id);
      this.audit.record({ origin, action: 'oauth_application.deleted', target: { type: 'oauth_application', id }, details: { name: row.name, client_id: row.client_id } }, now);
    });
  }

  /** The client named by `client_id`, for the authorization endpoint (which authenticates no client). */
  findClient(clientId: string): OAuthClientRow | undefined {
    return this.applications.findClient(clientId);
  }

  /**
   * The client making a token or revocation request: a confidential client must present its secret
   * (compared in constant time); a public client presents none. Anything else is `invalid_client`.
   */
  authenticateClient(credentials: ClientCredentials): OAuthClientRow {
    const client = this.applications.findClient(credentials.clientId);
    if (client === undefined) throw new OAuthError('invalid_client', 'Unknown client');
    const { clientSecret } = credentials;
    if (client.client_secret_hash === null) {
      if (clientSecret !== undefined) throw new OAuthError('invalid_client', 'A public client has no secret');
      return client;
    }
    const wellFormed = clientSecret !== undefined && checksummedTokenPrefix(clientSecret, [clientSecretPrefix]) !== undefined;
    const presented = wellFormed ? hashToken(clientSecret).toString('base64') : '';
    if (!sameSecret(presented, client.client_secret_hash.toString('base64'))) throw new OAuthError('invalid_client', 'Client authentication failed');
    return client;
  }
}
