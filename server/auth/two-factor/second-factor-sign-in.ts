import { AuthenticationError } from '../../errors.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { User } from '../identity/user.js';
import type { PendingSignIns } from '../sessions/pending-sign-ins.js';
import type { SessionClient } from '../sessions/sessions-service.js';
import { SignInThrottledError, type SignedIn, type SignInService } from '../sessions/sign-in-service.js';
import type { SignInThrottle } from '../sessions/sign-in-throttle.js';
import type { SmsFactor, SmsSent } from './sms-factor.js';
import type { SecondFactorKind, TwoFactorService } from './two-factor-service.js';

export interface SecondFactorAttempt extends SessionClient {
  /** The pending sign-in's token, from the browser. */
  pendingToken: string;
  kind: SecondFactorKind;
  code: string;
  currentToken?: string | undefined;
}

/** The ways the pending user can prove the second factor: only those they have are asked for. */
export interface SecondFactorOffer {
  totp: boolean;
  /** A confirmed phone, and a sender to text it. */
  sms: boolean;
  /** At least one recovery code left. */
  recoveryCode: boolean;
}

/** The identity feature's users, found again by the id a pending sign-in holds. */
export interface PendingUsers {
  findByIdInAnyOrganization(id: string): User | undefined;
}

/**
 * The second step of signing in: a pending sign-in (5 minutes, 5 wrong codes) plus a right factor
 * becomes a session through SignInService.complete. Wrong codes also count per account and per
 * address (10 in 15 minutes, as passwords do, in counters of their own).
 */
export class SecondFactorSignIn {
  constructor(
    private readonly pending: PendingSignIns,
    private readonly users: PendingUsers,
    private readonly twoFactor: TwoFactorService,
    private readonly sms: SmsFactor,
    private readonly signIn: SignInService,
    private readonly throttle: SignInThrottle,
    private readonly audit: AuditLog,
  ) {}

  /** The user a pending sign-in waits for, while it lasts. */
  #pendingUser(pendingToken: string, now: Date): User | undefined {
    return this.#pendingSignIn(pendingToken, now)?.user;
  }

  #pendingSignIn(pendingToken: string, now: Date): { user: User; firstFactor: string } | undefined {
    const pending = this.pending.find(pendingToken, now);
    const user = pending === undefined ? undefined : this.users.findByIdInAnyOrganization(pending.userId);
    return user === undefined ? undefined : { user, firstFactor: pending!.firstFactor };
  }

  /** What the pending user may answer with; undefined once the pending sign-in is gone. */
  offer(pendingToken: string, now: Date): SecondFactorOffer | undefined {
    const user = this.#pendingUser(pendingToken, now);
    if (user === undefined) return undefined;
    return {
      totp: this.twoFactor.confirmed(user.id, 'totp'),
      sms: this.sms.offeredTo(user.id),
      recoveryCode: this.twoFactor.status(user.id).recovery_codes_left > 0,
    };
  }

  /** Texts a code to the pending user's phone; only this pending sign-in can use it. */
  async sendSmsCode(pendingToken: string, now: Date): Promise<SmsSent> {
    const user = this.#pendingUser(pendingToken, now);
    if (user?.status !== 'active') throw expired();
    return this.sms.sendSignInCode(user.id, pendingToken, now);
  }

  async finish(attempt: SecondFactorAttempt, now: Date): Promise<SignedIn> {
    const pending = this.#pendingSignIn(attempt.pendingToken, now);
    if (pending?.user.status !== 'active') throw expired();
    const { user, firstFactor } = pending;
    const decision = this.throttle.begin(user.email, attempt.ip, now.getTime());
    if (!decision.allowed) throw new SignInThrottledError(decision, now.getTime());
    const passed =
      attempt.kind === 'sms' ? this.sms.verifySignInCode(user.id, attempt.pendingToken, attempt.code, now) : this.twoFactor.verify(user.id, attempt.kind, attempt.code, now);
    if (!passed) {
      this.pending.failed(attempt.pendingToken);
      const origin = { orgId: user.org_id, actor: null, credential: null, ip: attempt.ip, userAgent: attempt.userAgent };
      this.audit.record({ origin, action: 'sign_in.failed', target: { type: 'user', id: user.id }, details: { reason: `wrong_${attempt.kind}` } }, now);
      throw new AuthenticationError('invalid_second_factor', 'The code is wrong or was already used');
    }
    this.throttle.succeeded(user.email, attempt.ip, now.getTime());
    this.pending.end(attempt.pendingToken);
    return this.signIn.complete(user, attempt, [firstFactor, attempt.kind], now);
  }
}

function expired(): AuthenticationError {
  return new AuthenticationError('sign_in_expired', 'The sign-in has expired; enter your password again');
}
