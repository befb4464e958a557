import { toString as qrCodeSvg } from 'qrcode';
import type { SecretBox } from '../../../common/secret-box.js';
import { ConflictError, InvalidRequestError, NotFoundError, PermissionError } from '../../errors.js';
import type { RequestClient } from '../../http/request-client.js';
import type { Transaction } from '../../storage/open-database.js';
import { hashToken } from '../api-keys/api-key-token.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditOrigin } from '../audit/audit-origin.js';
import type { User } from '../identity/user.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import type { SignInService } from '../sessions/sign-in-service.js';
import { newRecoveryCodes, normalizeRecoveryCode } from './recovery-codes.js';
import { newTotpSecret, totpUri, verifyTotp } from './totp.js';
import { twoFactorMethods, type TwoFactorMethod, type TwoFactorRepository } from './two-factor-repository.js';

/** What proves the second factor at sign-in. */
export const secondFactorKinds = [...twoFactorMethods, 'recovery_code'] as const;
export type SecondFactorKind = (typeof secondFactorKinds)[number];

export interface TotpEnrollment {
  /** Base32, for typing into an app by hand. */
  secret: string;
  otpauthUri: string;
  /** The URI as a QR code, an SVG document of our own making (paths only). */
  qrSvg: string;
}

/** The user acting on their own factors: who they are, and which session (if any) stays when the others end. */
export interface FactorOwner {
  origin: AuditOrigin;
  user: User;
  keepSessionId: string | null;
}

/** The identity feature's users, marked as having a second factor or not. */
export interface FactorUsers {
  setTwoFactorEnabled(id: string, enabled: boolean): void;
}

/**
 * A user's second factors: TOTP enrollment, recovery codes, removal and the admins' reset, and
 * checking a factor at sign-in. Secrets are sealed at rest and never leave again after enrollment;
 * recovery codes are stored as hashes. Adding or removing a factor ends the user's other sessions.
 */
export class TwoFactorService {
  constructor(
    private readonly methods: TwoFactorRepository,
    private readonly users: FactorUsers,
    private readonly sessions: SessionsService,
    private readonly signIn: SignInService,
    private readonly secretBox: SecretBox,
    private readonly audit: AuditLog,
    private readonly transaction: Transaction,
  ) {}

  /** The user's methods and how many recovery codes are left. */
  status(userId: string): { methods: { method: TwoFactorMethod; enabled: boolean; created_at: string }[]; recovery_codes_left: number } {
    return {
      methods: this.methods.ofUser(userId).map((row) => ({ method: row.method, enabled: row.confirmed_at !== null, created_at: row.created_at })),
      recovery_codes_left: this.methods.recoveryCodesLeft(userId),
    };
  }

  /** Starts (or starts over) TOTP enrollment with a new secret; one already confirmed must be removed first (409). */
  async startTotp(user: User, now: Date): Promise<TotpEnrollment> {
    if (this.confirmed(user.id, 'totp')) throw new ConflictError('already_enabled', 'An authenticator app is already set up; remove it first');
    const secret = newTotpSecret();
    this.methods.save({
      user_id: user.id,
      method: 'totp',
      secret: this.secretBox.seal(secret, sealedFor(user.id)),
      sealed_phone: null,
      confirmed_at: null,
      last_time_step: null,
      created_at: now.toISOString(),
    });
    return enrollmentOf(secret, user);
  }

  /** The enrollment waiting for its first code, shown again (a wrong code typed); undefined when none waits. */
  async pendingTotp(user: User): Promise<TotpEnrollment | undefined> {
    const pending = this.methods.ofUser(user.id).find((row) => row.method === 'totp' && row.confirmed_at === null);
    return pending === undefined ? undefined : enrollmentOf(this.secretBox.open(pending.secret!, sealedFor(user.id)), user);
  }

  /** Finishes TOTP enrollment with a code from the app; answers a new set of recovery codes (the old set is void). */
  confirmTotp(owner: FactorOwner, code: string, now: Date): string[] {
    const { user } = owner;
    const pending = this.methods.ofUser(user.id).find((row) => row.method === 'totp' && row.confirmed_at === null);
    if (pending === undefined) throw new ConflictError('no_enrollment', 'No authenticator app enrollment is waiting; start one first');
    const timeStep = verifyTotp(this.secretBox.open(pending.secret!, sealedFor(user.id)), code, now, null);
    if (timeStep === undefined) throw new InvalidRequestError('invalid_code', 'The code is not the one the authenticator app shows now', 'code');
    return this.enable(owner, 'totp', timeStep, now, { newRecoveryCodes: true });
  }

  /**
   * A pending method whose code proved it becomes a factor, in one transaction with the rest: the
   * user counts as having a second factor, their other sessions end, the audit log says so. Answers
   * a new set of recovery codes when asked for one (the old set is then void), otherwise none.
   */
  enable(owner: FactorOwner, method: TwoFactorMethod, timeStep: number | null, now: Date, options: { newRecoveryCodes: boolean }): string[] {
    const { user } = owner;
    return this.transaction(() => {
      if (!this.methods.confirm(user.id, method, now.toISOString(), timeStep)) throw new ConflictError('no_enrollment', 'This enrollment was already finished');
      this.users.setTwoFactorEnabled(user.id, true);
      const codes = options.newRecoveryCodes ? this.#replaceRecoveryCodes(user.id) : [];
      this.sessions.revokeOthers(owner.origin, user.id, owner.keepSessionId, now);
      this.audit.record({ origin: owner.origin, action: 'two_factor.enabled', target: { type: 'user', id: user.id }, details: { method } }, now);
      return codes;
    });
  }

  /** A new set of recovery codes; the old set stops working. Only for a user with a second factor. */
  newRecoveryCodes(owner: FactorOwner, now: Date): string[] {
    const { user } = owner;
    if (user.two_factor_enabled !== 1) throw new ConflictError('two_factor_not_enabled', 'Recovery codes need a second factor; set one up first');
    return this.transaction(() => {
      const codes = this.#replaceRecoveryCodes(user.id);
      this.audit.record({ origin: owner.origin, action: 'two_factor.recovery_codes_created', target: { type: 'user', id: user.id } }, now);
      return codes;
    });
  }

  /**
   * Removes one method after checking the password again (403 reauthentication_required for a
   * missing or wrong one; failures count against the sign-in limits). Without a method left, the
   * recovery codes go too.
   */
  async remove(owner: FactorOwner, method: TwoFactorMethod, password: string | undefined, client: RequestClient, now: Date): Promise<void> {
    const { user } = owner;
    const verified = password !== undefined && password !== '' && (await this.signIn.checkPassword(user.email, password, client.ip, now)) !== undefined;
    if (!verified) throw new PermissionError('Removing a second factor needs your password, sent as {"password": ...}', 'reauthentication_required');
    this.transaction(() => {
      if (!this.methods.delete(user.id, method)) throw new NotFoundError(`No ${method} second factor`, 'method');
      this.#settle(user.id);
      this.sessions.revokeOthers(owner.origin, user.id, owner.keepSessionId, now);
      this.audit.record({ origin: owner.origin, action: 'two_factor.disabled', target: { type: 'user', id: user.id }, details: { method } }, now);
    });
  }

  /** An admin takes away every second factor of a member (who signs in with the password alone, then enrolls again); their sessions end. */
  reset(origin: AuditOrigin, user: User, now: Date): void {
    this.transaction(() => {
      this.methods.deleteAll(user.id);
      this.users.setTwoFactorEnabled(user.id, false);
      this.sessions.revokeOthers(origin, user.id, null, now);
      this.audit.record({ origin, action: 'two_factor.reset', target: { type: 'user', id: user.id } }, now);
    });
  }

  /** Whether the code proves the factor now; a TOTP code or a recovery code passes once only. */
  verify(userId: string, kind: SecondFactorKind, code: string, now: Date): boolean {
    if (kind === 'recovery_code') {
      const normalized = normalizeRecoveryCode(code);
      return normalized !== undefined && this.methods.useRecoveryCode(userId, hashToken(normalized));
    }
    const row = this.methods.ofUser(userId).find((method) => method.method === kind && method.confirmed_at !== null);
    if (row === undefined || kind !== 'totp') return false;
    const timeStep = verifyTotp(this.secretBox.open(row.secret!, sealedFor(userId)), code.trim(), now, row.last_time_step);
    return timeStep !== undefined && this.methods.useTimeStep(userId, timeStep);
  }

  /** Whether the user has this method, confirmed. */
  confirmed(userId: string, method: TwoFactorMethod): boolean {
    return this.methods.ofUser(userId).some((row) => row.method === method && row.confirmed_at !== null);
  }

  #replaceRecoveryCodes(userId: string): string[] {
    const codes = newRecoveryCodes();
    this.methods.replaceRecoveryCodes(userId, codes.map(hashToken));
    return codes;
  }

  /** After a removal: the user keeps a second factor only while a confirmed method is left. */
  #settle(userId: string): void {
    const enabled = this.methods.ofUser(userId).some((row) => row.confirmed_at !== null);
    if (!enabled) this.methods.replaceRecoveryCodes(userId, []);
    this.users.setTwoFactorEnabled(userId, enabled);
  }
}

async function enrollmentOf(secret: string, user: User): Promise<TotpEnrollment> {
  const otpauthUri = totpUri(secret, user.email);
  return { secret, otpauthUri, qrSvg: await qrCodeSvg(otpauthUri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }) };
}

/** A sealed secret opens only for its own user: one copied onto another row does not. */
function sealedFor(userId: string): string {
  return `two_factor:${userId}`;
}
