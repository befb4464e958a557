import { InvalidRequestError, NotFoundError } from '../../errors.js';
import type { RequestClient } from '../../http/request-client.js';
import type { Transaction } from '../../storage/open-database.js';
import type { AuditLog } from '../audit/audit-log.js';
import { originOf } from '../audit/audit-origin.js';
import type { User } from '../identity/user.js';
import { hashPassword } from '../passwords/password-hash.js';
import { checkNewPassword } from '../passwords/password-policy.js';
import type { Principal } from '../principal.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import type { SignInService } from '../sessions/sign-in-service.js';

export interface ProfileChange {
  name?: string | undefined;
  password?: string | undefined;
  current_password?: string | undefined;
}

/** The identity feature's users, as one changes their own account. */
export interface ProfileUsers {
  findById(orgId: string, id: string): User | undefined;
  setName(id: string, name: string): void;
  setPasswordHash(id: string, hash: string): void;
}

/** The caller's own account: `userId` is the user a session or personal token acts for. */
export class ProfileService {
  constructor(
    private readonly users: ProfileUsers,
    private readonly sessions: SessionsService,
    private readonly signIn: SignInService,
    private readonly audit: AuditLog,
    private readonly transaction: Transaction,
  ) {}

  get(orgId: string, userId: string): User {
    const user = this.users.findById(orgId, userId);
    if (user === undefined) throw new NotFoundError(`No user ${userId}`);
    return user;
  }

  /**
   * A new password needs the current one (its failures count against the sign-in limits) and ends
   * every other session of the user; the session making the change stays. The change is audited
   * with the names of the fields changed, never their values.
   */
  async update(principal: Principal, userId: string, change: ProfileChange, client: RequestClient, now: Date): Promise<User> {
    const user = this.get(principal.orgId, userId);
    let passwordHash: string | undefined;
    if (change.password !== undefined) {
      if (change.current_password === undefined) {
        throw new InvalidRequestError('missing_required_parameter', 'A new password needs current_password', 'current_password');
      }
      checkNewPassword(change.password, user.email);
      if ((await this.signIn.checkPassword(user.email, change.current_password, client.ip, now)) === undefined) {
        throw new InvalidRequestError('invalid_parameter', 'current_password is not the current password', 'current_password');
      }
      passwordHash = await hashPassword(change.password);
    }
    const origin = originOf(principal, client);
    this.transaction(() => {
      if (passwordHash !== undefined) {
        this.users.setPasswordHash(user.id, passwordHash);
        this.sessions.revokeOthers(origin, user.id, principal.credential.kind === 'session' ? principal.credential.id : null, now);
      }
      if (change.name !== undefined) this.users.setName(user.id, change.name);
      const changed = [...(change.name !== undefined ? ['name'] : []), ...(passwordHash !== undefined ? ['password'] : [])];
      if (changed.length > 0) this.audit.record({ origin, action: 'user.updated', target: { type: 'user', id: user.id }, details: { changed } }, now);
    });
    return this.get(principal.orgId, userId);
  }
}
