import { AuthenticationError } from '../../errors.js';
import type { Transaction } from '../../storage/open-database.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditOrigin } from '../audit/audit-origin.js';
import type { User } from '../identity/user.js';
import type { PasswordVerifier } from '../passwords/password-hash.js';
import type { PendingSignIns } from './pending-sign-ins.js';
import type { SessionClient, SessionsService, StartedSession } from './sessions-service.js';
import { ThrottledError } from '../throttling/throttled-error.js';
import type { SignInThrottle } from './sign-in-throttle.js';

export interface SignInAttempt extends SessionClient {
  email: string;
  password: string;
  /** The session cookie the browser already holds, if any: it ends, and the new session gets a new id. */
  currentToken?: string | undefined;
}

export type SignedIn = StartedSession & { user: User };

/** A password that passed: a session, or a pending sign-in (its token, for the browser to hold) waiting for the second factor. */
export type SignInOutcome = ({ kind: 'signed_in' } & SignedIn) | { kind: 'second_factor'; pendingToken: string };

/** Refused sign-in: the account or the address has used its attempts. */
export class SignInThrottledError extends ThrottledError {}

/**
 * Whether a password may sign this user in: an organization that signs in through SAML keeps its members
 * off passwords, with a fallback for owners (audited by the policy).
 */
export interface PasswordSignInPolicy {
  passwordSignIn(user: User, client: SessionClient, now: Date): 'allowed' | 'single_sign_on_required';
}

/** The identity feature's users, as they sign in. */
export interface SignInUsers {
  /** Emails are unique across organizations: an email alone names the account. */
  findForSignIn(email: string): User | undefined;
  recordSignIn(id: string, at: string): void;
}

interface PasswordCheck {
  /** The account the email names, whether or not the password is right. */
  user: User | undefined;
  /** Why the pair does not sign in; undefined when it does. */
  failure?: 'wrong_password' | 'user_not_active';
}

/**
 * Email and password to a session. One answer for every wrong pair, whether or not the email exists, in the same time.
 * Sign-ins and failures on an existing account are audited in its organization; an email that names
 * no account has no organization to tell (and might be a password typed in the wrong field), so it is not recorded.
 */
export class SignInService {
  constructor(
    private readonly users: SignInUsers,
    private readonly sessions: SessionsService,
    private readonly passwords: PasswordVerifier,
    private readonly throttle: SignInThrottle,
    private readonly audit: AuditLog,
    private readonly transaction: Transaction,
    private readonly pending: PendingSignIns,
    private readonly passwordPolicy: PasswordSignInPolicy = { passwordSignIn: () => 'allowed' },
  ) {}

  /** A right password signs in at once, or, for a user with a second factor, starts a pending sign-in that the factor finishes. */
  async signIn(attempt: SignInAttempt, now: Date): Promise<SignInOutcome> {
    const { user, failure } = await this.#check(attempt.email, attempt.password, attempt.ip, now);
    if (user === undefined || failure !== undefined) {
      if (user !== undefined) {
        const origin = originOfAttempt(user, attempt, null);
        this.audit.record({ origin, action: 'sign_in.failed', target: { type: 'user', id: user.id }, details: { reason: failure } }, now);
      }
      throw new AuthenticationError('invalid_credentials', 'The email or password is wrong');
    }
    if (this.passwordPolicy.passwordSignIn(user, attempt, now) === 'single_sign_on_required') {
      const origin = originOfAttempt(user, attempt, null);
      this.audit.record({ origin, action: 'sign_in.failed', target: { type: 'user', id: user.id }, details: { reason: 'single_sign_on_required' } }, now);
      throw new AuthenticationError('single_sign_on_required', 'This organization signs in through single sign-on');
    }
    return this.#proceed(user, attempt, 'password', now);
  }

  /**
   * A user who just proved who they are with a one-time link (accepting an invitation, resetting the
   * password): the link stands for the password, and a second factor is still asked for.
   */
  signInThroughLink(user: User, client: SessionClient & { currentToken?: string | undefined }, via: 'invitation' | 'password_reset', now: Date): SignInOutcome {
    return this.#proceed(user, client, via, now);
  }

  /**
   * A user an identity provider vouched for (`via` names it in the audit log): the provider stands for
   * the password, and the second factor is still asked for unless the organization accepts the provider's.
   */
  signInThroughIdentityProvider(user: User, client: SessionClient & { currentToken?: string | undefined }, via: string, providerSatisfiesSecondFactor: boolean, now: Date): SignInOutcome {
    if (providerSatisfiesSecondFactor) return { kind: 'signed_in', ...this.complete(user, client, [via], now) };
    return this.#proceed(user, client, via, now);
  }

  #proceed(user: User, client: SessionClient & { currentToken?: string | undefined }, firstFactor: string, now: Date): SignInOutcome {
    if (user.two_factor_enabled === 1) return { kind: 'second_factor', pendingToken: this.pending.begin(user.id, firstFactor, now) };
    return { kind: 'signed_in', ...this.complete(user, client, [firstFactor], now) };
  }

  /**
   * The one way a user who proved who they are gets a session: the session the browser held ends,
   * the new one gets a new id, and the sign-in is recorded with the factors that proved it.
   */
  complete(user: User, client: SessionClient & { currentToken?: string | undefined }, factors: readonly string[], now: Date): SignedIn {
    return this.transaction(() => {
      if (client.currentToken !== undefined) this.sessions.end(client.currentToken);
      this.users.recordSignIn(user.id, now.toISOString());
      const started = this.sessions.start(user, client, now);
      const origin = originOfAttempt(user, client, started.id);
      this.audit.record({ origin, action: 'sign_in.succeeded', target: { type: 'user', id: user.id }, details: { factors } }, now);
      return { ...started, user };
    });
  }

  /**
   * The active user with this email and password, or undefined for any wrong pair; throws
   * SignInThrottledError once the account or the address has used its attempts.
   */
  async checkPassword(email: string, password: string, ip: string, now: Date): Promise<User | undefined> {
    const { user, failure } = await this.#check(email, password, ip, now);
    return failure === undefined ? user : undefined;
  }

  async #check(email: string, password: string, ip: string, now: Date): Promise<PasswordCheck> {
    const decision = this.throttle.begin(email, ip, now.getTime());
    if (!decision.allowed) throw new SignInThrottledError(decision, now.getTime());
    const user = this.users.findForSignIn(email);
    const matches = await this.passwords.verify(user?.password_hash ?? null, password);
    if (!matches) return { user, failure: 'wrong_password' };
    if (user?.status !== 'active') return { user, failure: 'user_not_active' };
    this.throttle.succeeded(email, ip, now.getTime());
    return { user };
  }
}

/** A sign-in acts as the user only once it succeeded, through the session it started. */
function originOfAttempt(user: User, client: SessionClient, sessionId: string | null): AuditOrigin {
  return {
    orgId: user.org_id,
    actor: sessionId === null ? null : { type: 'user', id: user.id },
    credential: sessionId === null ? null : { type: 'session', id: sessionId },
    ip: client.ip,
    userAgent: client.userAgent,
  };
}
