import { AuthenticationError, RateLimitError } from '../../errors.js';
import type { User, UsersRepository } from '../identity/users-repository.js';
import type { PasswordVerifier } from '../passwords/password-hash.js';
import type { SessionClient, SessionsService, StartedSession } from './sessions-service.js';
import type { SignInThrottle, ThrottleDecision } from './sign-in-throttle.js';

export interface SignInAttempt extends SessionClient {
  email: string;
  password: string;
  /** The session cookie the browser already holds, if any: it ends, and the new session gets a new id. */
  currentToken?: string | undefined;
}

/** Refused sign-in: the contract's 429, with what its X-RateLimit-* headers say. */
export class SignInThrottledError extends RateLimitError {
  constructor(readonly decision: ThrottleDecision, nowMs: number) {
    super(decision.resetAt, Math.floor(nowMs / 1000));
  }
}

/** Email and password to a session. One answer for every wrong pair, whether or not the email exists, in the same time. */
export class SignInService {
  constructor(
    private readonly users: UsersRepository,
    private readonly sessions: SessionsService,
    private readonly passwords: PasswordVerifier,
    private readonly throttle: SignInThrottle,
  ) {}

  async signIn(attempt: SignInAttempt, now: Date): Promise<StartedSession & { user: User }> {
    const user = await this.checkPassword(attempt.email, attempt.password, attempt.ip, now);
    if (user === undefined) throw new AuthenticationError('invalid_credentials', 'The email or password is wrong');
    if (attempt.currentToken !== undefined) this.sessions.end(attempt.currentToken);
    this.users.recordSignIn(user.id, now.toISOString());
    return { ...this.sessions.start(user, attempt, now), user };
  }

  /**
   * The active user with this email and password, or undefined for any wrong pair; throws
   * SignInThrottledError once the account or the address has used its attempts.
   */
  async checkPassword(email: string, password: string, ip: string, now: Date): Promise<User | undefined> {
    const decision = this.throttle.begin(email, ip, now.getTime());
    if (!decision.allowed) throw new SignInThrottledError(decision, now.getTime());
    const user = this.users.findForSignIn(email);
    const matches = await this.passwords.verify(user?.password_hash ?? null, password);
    if (!matches || user?.status !== 'active') return undefined;
    this.throttle.succeeded(email, ip, now.getTime());
    return user;
  }
}
