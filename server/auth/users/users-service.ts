import { ConflictError, NotFoundError } from '../../errors.js';
import type { Transaction } from '../../storage/open-database.js';
import type { ApiKeysRepository } from '../api-keys/api-keys-repository.js';
import type { User, UsersRepository } from '../identity/users-repository.js';
import type { OneTimeLinks } from '../one-time-links/one-time-links.js';
import type { Role } from '../permissions.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import { requireMayGrant, requireMayManage, type Administrator } from './ownership-rules.js';

export interface UserChange {
  name?: string | undefined;
  role?: Role | undefined;
  /** `active` gives a disabled user back the account: active again, or invited when they never set a password. */
  status?: 'active' | 'disabled' | undefined;
}

/**
 * What an administrator does to the users of their organization. A role change needs nothing more
 * here: a session reads the role at every request and gets a new id at the first request after the change.
 */
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly sessions: SessionsService,
    private readonly apiKeys: ApiKeysRepository,
    private readonly links: OneTimeLinks,
    private readonly transaction: Transaction,
  ) {}

  list(orgId: string, limit: number, offset: number): { rows: User[]; total: number } {
    return this.users.page(orgId, limit, offset);
  }

  get(orgId: string, userId: string): User {
    const user = this.users.findById(orgId, userId);
    if (user === undefined) throw new NotFoundError(`No user ${userId}`, 'id');
    return user;
  }

  /** Owners are changed only by owners, and the organization always keeps an active owner. */
  update(actor: Administrator, orgId: string, userId: string, change: UserChange, now: Date): User {
    return this.transaction(() => {
      const user = this.get(orgId, userId);
      requireMayManage(actor, user);
      if (change.role !== undefined) requireMayGrant(actor, change.role);
      const leavesOwnership = (change.role !== undefined && change.role !== 'owner') || change.status === 'disabled';
      if (leavesOwnership) this.#keepAnOwner(user);
      if (change.name !== undefined) this.users.setName(user.id, change.name);
      if (change.role !== undefined) this.users.setRole(orgId, user.id, change.role);
      if (change.status === 'disabled') this.disable(orgId, user.id, now);
      if (change.status === 'active' && user.status === 'disabled') {
        this.users.setStatus(orgId, user.id, user.password_hash === null ? 'invited' : 'active');
      }
      return this.get(orgId, userId);
    });
  }

  /** Removes the user with their sessions, personal tokens and links. */
  remove(actor: Administrator, orgId: string, userId: string): void {
    this.transaction(() => {
      const user = this.get(orgId, userId);
      requireMayManage(actor, user);
      this.#keepAnOwner(user);
      this.users.delete(orgId, user.id);
    });
  }

  /** Disabling a user ends their sessions, revokes their personal tokens and cancels their links, in one transaction. */
  disable(orgId: string, userId: string, now: Date): void {
    this.transaction(() => {
      if (!this.users.setStatus(orgId, userId, 'disabled')) throw new NotFoundError(`No user ${userId}`, 'id');
      this.sessions.revokeOthers(userId, null);
      this.apiKeys.revokeOfUser(userId, now.toISOString());
      this.links.cancel(userId);
    });
  }

  #keepAnOwner(user: User): void {
    if (user.role === 'owner' && user.status === 'active' && this.users.otherActiveOwners(user.org_id, user.id) === 0) {
      throw new ConflictError('last_owner', 'The organization would have no active owner left; make another user owner first');
    }
  }
}
