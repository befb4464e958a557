import { hashToken } from '../../crypto/checksummed-token.js';
import { newId } from '../../crypto/new-id.js';
import { newSecretToken } from '../../crypto/secret-token.js';
import type { Transaction } from '../../storage/open-database.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditOrigin } from '../audit/audit-origin.js';
import type { OAuthClientRow } from './oauth-applications-repository.js';
import type { OAuthApplicationsService } from './oauth-applications-service.js';
import { OAuthError, type OAuthErrorCode } from './oauth-error.js';
import type { OAuthGrantsRepository } from './oauth-grants-repository.js';
import { parseScopeParameter, scopeText, type OAuthScope } from './oauth-scopes.js';
import { isPkceValue } from './pkce.js';

/** How long a code may wait for its exchange: RFC 6749 §4.1.2 recommends 10 minutes at most; one is plenty for a redirect. */
export const codeLifetimeMs = 60_000;

/** A request for the authorization endpoint's parameters, as the query (or the consent form) carried them. */
export type AuthorizationParameters = Record<string, string | string[] | undefined>;

/** A valid authorization request: the client, where its answer goes, and what it asks for. */
export interface AuthorizationRequest {
  client: OAuthClientRow;
  redirectUri: string;
  scopes: OAuthScope[];
  state: string | undefined;
  /** The PKCE S256 challenge; undefined only for a confidential client that sent none. */
  codeChallenge: string | undefined;
}

/** The request cannot be trusted to name where to send the user: shown as an error page, never redirected (RFC 6749 §4.1.2.1). */
export class UntrustedRedirectError extends Error {
  constructor(
    /** What cannot be trusted: which application asks, or where to send the user back. */
    readonly fault: 'client_id' | 'redirect_uri',
    message: string,
  ) {
    super(message);
    this.name = 'UntrustedRedirectError';
  }
}

/** A refusal sent back to the client's (verified) redirect URI. */
export class AuthorizationRedirectError extends Error {
  constructor(
    readonly redirectTo: string,
    readonly error: OAuthError,
  ) {
    super(error.description);
    this.name = 'AuthorizationRedirectError';
  }
}

/** The authorization endpoint: request validation, remembered consent, and single-use codes bound to client, redirect URI, user and challenge. */
export class OAuthAuthorizationService {
  constructor(
    private readonly applications: OAuthApplicationsService,
    private readonly grants: OAuthGrantsRepository,
    private readonly audit: AuditLog,
    private readonly transaction: Transaction,
    /** `server.public_url`: the issuer, sent back as `iss` (RFC 9207) so a client talking to several servers cannot be mixed up. */
    private readonly issuer: string,
  ) {}

  /**
   * Checks the client and redirect URI first (exact string match with a registered one): until both
   * hold, a fault is an UntrustedRedirectError. After, faults go back to the client as redirects.
   */
  validate(parameters: AuthorizationParameters): AuthorizationRequest {
    const untrusted = (name: 'client_id' | 'redirect_uri'): string | undefined => {
      const value = parameters[name];
      if (Array.isArray(value)) throw new UntrustedRedirectError(name, `The parameter ${name} is repeated`);
      return value;
    };
    const clientId = untrusted('client_id');
    if (clientId === undefined) throw new UntrustedRedirectError('client_id', 'The request names no application (client_id)');
    const client = this.applications.findClient(clientId);
    if (client === undefined) throw new UntrustedRedirectError('client_id', 'The application asking for access is not registered here');
    const redirectUri = untrusted('redirect_uri');
    if (redirectUri === undefined) throw new UntrustedRedirectError('redirect_uri', 'The request names no redirect address (redirect_uri)');
    if (!(JSON.parse(client.redirect_uris) as string[]).includes(redirectUri)) {
      throw new UntrustedRedirectError('redirect_uri', `The redirect address is not one registered for ${client.name}`);
    }
    const state = Array.isArray(parameters.state) ? undefined : parameters.state;
    const refuse = (code: OAuthErrorCode, description: string) => {
      const error = new OAuthError(code, description);
      return new AuthorizationRedirectError(this.errorRedirect(redirectUri, error, state), error);
    };
    const single = (name: string): string | undefined => {
      const value = parameters[name];
      if (Array.isArray(value)) throw refuse('invalid_request', `The parameter ${name} is repeated`);
      return value;
    };
    if (Array.isArray(parameters.state)) throw refuse('invalid_request', 'The parameter state is repeated');
    if (single('response_type') !== 'code') throw refuse('unsupported_response_type', 'Only response_type=code is supported');
    const challenge = single('code_challenge');
    const method = single('code_challenge_method');
    if (challenge !== undefined && method !== 'S256') throw refuse('invalid_request', 'code_challenge_method must be S256 (plain is refused)');
    if (challenge === undefined && method !== undefined) throw refuse('invalid_request', 'code_challenge_method without code_challenge');
    if (challenge !== undefined && !isPkceValue(challenge)) throw refuse('invalid_request', 'code_challenge is not a valid S256 challenge');
    if (challenge === undefined && client.confidential === 0) throw refuse('invalid_request', 'A public client must use PKCE (code_challenge with S256)');
    const allowed = JSON.parse(client.scopes) as OAuthScope[];
    const scopeParameter = single('scope');
    const scopes = scopeParameter === undefined ? allowed : parseScopeParameter(scopeParameter);
    if (scopes === undefined || scopes.length === 0) throw refuse('invalid_scope', 'scope names an unknown scope, repeats one or is empty');
    const outside = scopes.find((scope) => !allowed.includes(scope));
    if (outside !== undefined) throw refuse('invalid_scope', `The application may not ask for the scope ${outside}`);
    return { client, redirectUri, scopes, state, codeChallenge: challenge };
  }

  /** Whether the user already granted this application every scope it asks for now. */
  hasConsent(userId: string, request: AuthorizationRequest): boolean {
    const granted = this.grants.authorization(request.client.id, userId)?.scopes.split(' ') ?? [];
    return request.scopes.every((scope) => granted.includes(scope));
  }

  /** The user consented: the consent is remembered (with what they granted before) and a code goes back to the client. */
  approve(origin: AuditOrigin, userId: string, request: AuthorizationRequest, now: Date): string {
    const code = newSecretToken();
    const at = now.toISOString();
    this.transaction(() => {
      const previous = this.grants.authorization(request.client.id, userId);
      const granted = [...new Set([...(previous?.scopes.split(' ') ?? []), ...request.scopes])] as OAuthScope[];
      const authorization = this.grants.saveAuthorization({
        id: previous?.id ?? newId('authz'),
        application_id: request.client.id,
        user_id: userId,
        scopes: scopeText(granted),
        created_at: at,
        updated_at: at,
      });
      if (previous === undefined || previous.scopes !== authorization.scopes) {
        const details = { application_id: request.client.id, client_id: request.client.client_id, scopes: granted };
        this.audit.record({ origin, action: 'oauth_authorization.granted', target: { type: 'oauth_authorization', id: authorization.id }, details }, now);
      }
      this.grants.insertCode(
        {
          code_hash: hashToken(code),
          authorization_id: authorization.id,
          redirect_uri: request.redirectUri,
          scopes: scopeText(request.scopes),
          code_challenge: request.codeChallenge ?? null,
          created_at: at,
          expires_at: new Date(now.getTime() + codeLifetimeMs).toISOString(),
          grant_id: null,
        },
        at,
      );
    });
    return this.redirect(request.redirectUri, { code, ...(request.state !== undefined && { state: request.state }) });
  }

  /** The user declined: the client learns `access_denied`. */
  deny(request: AuthorizationRequest): string {
    return this.errorRedirect(request.redirectUri, new OAuthError('access_denied', 'The user declined'), request.state);
  }

  private errorRedirect(redirectUri: string, error: OAuthError, state: string | undefined): string {
    return this.redirect(redirectUri, { ...error.toBody(), ...(state !== undefined && { state }) });
  }

  private redirect(redirectUri: string, parameters: Record<string, string>): string {
    const url = new URL(redirectUri);
    for (const [name, value] of Object.entries({ ...parameters, iss: this.issuer })) url.searchParams.append(name, value);
    return url.href;
  }
}
