import { InvalidRequestError, NotFoundError } from '../../errors.js';
import type { User, UsersRepository } from '../identity/users-repository.js';
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

/** The caller's own account: `userId` is the user a session or personal token acts for. */
export class ProfileService {
  constructor(
    private readonly users: UsersRepository,
    private readonly sessions: SessionsService,
    private readonly signIn: SignInService,
  ) {}

  get(orgId: string, userId: string): User {
    const user = this.users.findById(orgId, userId);
    if (user === undefined) throw new NotFoundError(`No user ${userId}`);
    return user;
  }

  /**
   * A new password needs the current one (its failures count against the sign-in limits) and ends
   * every other session of the user; the session making the change stays.
   */
  async update(principal: Principal, userId: string, change: ProfileChange, ip: string, now: Date): Promise<User> {
    const user = this.get(principal.orgId, userId);
    if (change.password !== undefined) {
      if (change.current_password === undefined) {
        throw new InvalidRequestError('missing_required_parameter', 'A new password needs current_password', 'current_password');
      }
      checkNewPassword(change.password, user.email);
      if ((await this.signIn.checkPassword(user.email, change.current_password, ip, now)) === undefined) {
        throw new InvalidRequestError('invalid_parameter', 'current_password is not the current password', 'current_password');
      }
      this.users.setPasswordHash(user.id, await hashPassword(change.password));
      this.sessions.revokeOthers(user.id, principal.credential.kind === 'session' ? principal.credential.id : null);
    }
    if (change.name !== undefined) this.users.setName(user.id, change.name);
    return this.get(principal.orgId, userId);
  }
}
