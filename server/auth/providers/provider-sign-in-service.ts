import { newId } from '../../crypto/new-id.js';
import type { Transaction } from '../../storage/open-database.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { User } from '../identity/user.js';
import type { SessionClient } from '../sessions/sessions-service.js';
import type { SignInOutcome } from '../sessions/sign-in-service.js';
import type { IdentityProvidersService } from './identity-providers-service.js';
import { ProviderRefusedError, type ProviderProfile } from './provider-client.js';
import type { ProviderKind } from './provider-kinds.js';
import type { ProviderSignIns } from './provider-sign-ins.js';
import type { AddressLimit } from '../throttling/address-limit.js';
import { ThrottledError } from '../throttling/throttled-error.js';
import type { UserIdentitiesRepository, UserIdentityRow } from './user-identities-repository.js';

/** The identity feature's users, as a provider names them. */
export interface ProviderUsers {
  findForSignIn(email: string): User | undefined;
  findByIdInAnyOrganization(id: string): User | undefined;
}

/** The sign-in feature's one way in for a user a provider vouched for (SignInService). */
export interface ProviderSessions {
  signInThroughIdentityProvider(user: User, client: SessionClient & { currentToken?: string | undefined }, via: string, providerSatisfiesSecondFactor: boolean, now: Date): SignInOutcome;
}

/** Why a browser back from a provider is not signed in; each has its own page. */
export const providerRefusals = ['not_enabled', 'not_started', 'provider_refused', 'email_not_verified', 'no_account', 'account_not_active'] as const;
export type ProviderRefusal = (typeof providerRefusals)[number];

export class ProviderSignInRefusedError extends Error {
  constructor(
    readonly reason: ProviderRefusal,
    readonly provider: ProviderKind,
  ) {
    super(`${provider} sign-in refused: ${reason}`);
  }
}

/**
 * Sign-in through an organization's provider: leaving with state, PKCE and (OIDC) nonce bound to the
 * browser, and coming back. An account is found by its linked identity; an identity is linked to an
 * existing account only when the provider says the email is verified; nobody is created.
 */
export class ProviderSignInService {
  constructor(
    private readonly providers: IdentityProvidersService,
    private readonly signIns: ProviderSignIns,
    /** Sign-ins a client address may start: each holds a place among those in flight and may cost a request to the provider. */
    private readonly startLimit: AddressLimit,
    private readonly identities: UserIdentitiesRepository,
    private readonly users: ProviderUsers,
    private readonly sessions: ProviderSessions,
    private readonly audit: AuditLog,
    private readonly transaction: Transaction,
  ) {}

  /** Where to send the browser, and the token it holds until it comes back; throws ThrottledError past the address's limit. */
  async start(orgId: string, provider: ProviderKind, next: string, ip: string, now: Date): Promise<{ url: URL; token: string }> {
    const row = this.#enabledRow(orgId, provider);
    const decision = this.startLimit.take(ip, now.getTime());
    if (!decision.allowed) throw new ThrottledError(decision, now.getTime());
    const { url, checks } = await this.providers.client(row).authorizationUrl();
    return { url, token: this.signIns.begin({ orgId, provider, next, ...checks }, now) };
  }

  /**
   * The browser came back to the callback address with the provider's `response` (code and state),
   * holding `token`: the sign-in it started, checked by the provider's client, ends in a session (or a
   * pending second factor) for the account it names.
   */
  async finish(
    token: string | undefined,
    orgId: string,
    provider: ProviderKind,
    response: URLSearchParams,
    client: SessionClient & { currentToken?: string | undefined },
    now: Date,
  ): Promise<{ outcome: SignInOutcome; next: string }> {
    const started = token === undefined ? undefined : this.signIns.take(token, now);
    if (started === undefined || started.orgId !== orgId || started.provider !== provider) throw new ProviderSignInRefusedError('not_started', provider);
    const row = this.#enabledRow(orgId, provider);
    let profile: ProviderProfile;
    try {
      profile = await this.providers.client(row).finish(this.#callbackUrl(orgId, provider, response), started);
    } catch (error) {
      if (error instanceof ProviderRefusedError) throw new ProviderSignInRefusedError('provider_refused', provider);
      throw error;
    }
    const { user, identity } = this.#account(orgId, provider, profile, client, now);
    this.identities.recordUse(identity.id, now.toISOString());
    return { outcome: this.sessions.signInThroughIdentityProvider(user, client, provider, false, now), next: started.next };
  }

  /** The registered callback address with the provider's answer: what the browser was sent to, whatever Host it came through. */
  #callbackUrl(orgId: string, provider: ProviderKind, response: URLSearchParams): URL {
    const url = new URL(this.providers.callbackUrl(orgId, provider));
    url.search = response.toString();
    return url;
  }

  #enabledRow(orgId: string, provider: ProviderKind) {
    const row = this.providers.list(orgId).find((candidate) => candidate.provider === provider);
    if (row === undefined || row.enabled !== 1) throw new ProviderSignInRefusedError('not_enabled', provider);
    return row;
  }

  /** The active account of this organization the profile names: through its linked identity, or linked now by a verified email. */
  #account(orgId: string, provider: ProviderKind, profile: ProviderProfile, client: SessionClient, now: Date): { user: User; identity: UserIdentityRow } {
    const linked = this.identities.findBySubject(provider, profile.issuer, profile.subject);
    if (linked !== undefined) {
      const user = this.users.findByIdInAnyOrganization(linked.user_id);
      if (user?.org_id !== orgId) throw new ProviderSignInRefusedError('no_account', provider);
      return { user: this.#active(user, provider, client, now), identity: linked };
    }
    const user = profile.email === null ? undefined : this.users.findForSignIn(profile.email);
    if (user?.org_id !== orgId) throw new ProviderSignInRefusedError(profile.emailVerified ? 'no_account' : 'email_not_verified', provider);
    if (!profile.emailVerified) {
      this.#failed(user, provider, 'email_not_verified', client, now);
      throw new ProviderSignInRefusedError('email_not_verified', provider);
    }
    this.#active(user, provider, client, now);
    const identity: UserIdentityRow = {
      id: newId('idn'),
      user_id: user.id,
      provider,
      issuer: profile.issuer,
      subject: profile.subject,
      email: profile.email!,
      created_at: now.toISOString(),
      last_used_at: null,
    };
    this.transaction(() => {
      this.identities.insert(identity);
      const origin = { orgId, actor: { type: 'user' as const, id: user.id }, credential: null, ip: client.ip, userAgent: client.userAgent };
      this.audit.record({ origin, action: 'identity.linked', target: { type: 'identity', id: identity.id }, details: { provider, email: identity.email } }, now);
    });
    return { user, identity };
  }

  #active(user: User, provider: ProviderKind, client: SessionClient, now: Date): User {
    if (user.status === 'active') return user;
    this.#failed(user, provider, 'user_not_active', client, now);
    throw new ProviderSignInRefusedError('account_not_active', provider);
  }

  #failed(user: User, provider: ProviderKind, reason: string, client: SessionClient, now: Date): void {
    const origin = { orgId: user.org_id, actor: null, credential: null, ip: client.ip, userAgent: client.userAgent };
    this.audit.record({ origin, action: 'sign_in.failed', target: { type: 'user', id: user.id }, details: { reason, provider } }, now);
  }
}
