import { ConflictError, NotFoundError } from '../../errors.js';
import type { Transaction } from '../../storage/open-database.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditOrigin } from '../audit/audit-origin.js';
import type { User, UserStatus } from '../identity/user.js';
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

/** The identity feature's users, as administrators change them. */
export interface ManagedUsers {
  page(orgId: string, limit: number, offset: number): { rows: User[]; total: number };
  findById(orgId: string, id: string): User | undefined;
  setName(id: string, name: string): void;
  setStatus(orgId: string, id: string, status: UserStatus): boolean;
  setRole(orgId: string, userId: string, role: Role): boolean;
  /** Active owners of the organization other than `userId`. */
  otherActiveOwners(orgId: string, userId: string): number;
  /** Removes the user; their sessions, keys and links go with them. */
  delete(orgId: string, id: string): boolean;
}

/** A kind of token a user holds (personal tokens, OAuth tokens): a disabled user's are revoked with them, for good. */
export interface UserTokens {
  revokeOfUser(userId: string, at: string): void;
}

/**
 * What an administrator (`origin`, in its organization) does to the users of their organization, each
 * change audited in its transaction. A role change needs nothing more here: a session reads the role
 * at every request and gets a new id at the first request after the change; a personal token acts
 * with the role at request time.
 */
export class UsersService {
  constructor(
    private readonly users: ManagedUsers,
    private readonly sessions: SessionsService,
    private readonly personalKeys: UserTokens,
    private readonly oauthTokens: UserTokens,
    private readonly links: OneTimeLinks,
    private readonly audit: AuditLog,
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
  update(actor: Administrator, origin: AuditOrigin, userId: string, change: UserChange, now: Date): User {
    const { orgId } = origin;
    return this.transaction(() => {
      const user = this.get(orgId, userId);
      requireMayManage(actor, user);
      if (change.role !== undefined) requireMayGrant(actor, change.role);
      const leavesOwnership = (change.role !== undefined && change.role !== 'owner') || change.status === 'disabled';
      if (leavesOwnership) this.#keepAnOwner(user);
      if (change.name !== undefined && change.name !== user.name) {
        this.users.setName(user.id, change.name);
        this.audit.record({ origin, action: 'user.updated', target: { type: 'user', id: user.id }, details: { fields: ['name'] } }, now);
      }
      if (change.role !== undefined) this.changeRole(origin, user.id, change.role, now);
      if (change.status === 'disabled' && user.status !== 'disabled') this.disable(origin, user.id, now);
      if (change.status === 'active' && user.status === 'disabled') {
        this.users.setStatus(orgId, user.id, user.password_hash === null ? 'invited' : 'active');
        this.audit.record({ origin, action: 'user.updated', target: { type: 'user', id: user.id }, details: { fields: ['status'] } }, now);
      }
      return this.get(orgId, userId);
    });
  }

  /** Removes the user with their sessions, personal tokens and links. */
  remove(actor: Administrator, origin: AuditOrigin, userId: string, now: Date): void {
    this.transaction(() => {
      const user = this.get(origin.orgId, userId);
      requireMayManage(actor, user);
      this.#keepAnOwner(user);
      this.users.delete(origin.orgId, user.id);
      this.audit.record({ origin, action: 'user.deleted', target: { type: 'user', id: user.id } }, now);
    });
  }

  /** Disabling a user ends their sessions, revokes their personal and OAuth tokens and cancels their links, in one transaction. */
  disable(origin: AuditOrigin, userId: string, now: Date): void {
    this.transaction(() => {
      if (!this.users.setStatus(origin.orgId, userId, 'disabled')) throw new NotFoundError(`No user ${userId}`, 'id');
      this.audit.record({ origin, action: 'user.disabled', target: { type: 'user', id: userId } }, now);
      this.sessions.revokeOthers(origin, userId, null, now);
      this.personalKeys.revokeOfUser(userId, now.toISOString());
      this.oauthTokens.revokeOfUser(userId, now.toISOString());
      this.links.cancel(userId);
    });
  }

  changeRole(origin: AuditOrigin, userId: string, role: Role, now: Date): void {
    this.transaction(() => {
      const user = this.get(origin.orgId, userId);
      if (user.role === role) return;
      this.users.setRole(origin.orgId, userId, role);
      this.audit.record({ origin, action: 'user.role_changed', target: { type: 'user', id: userId }, details: { from: user.role, to: role } }, now);
    });
  }

  #keepAnOwner(user: User): void {
    if (user.role === 'owner' && user.status === 'active' && this.users.otherActiveOwners(user.org_id, user.id) === 0) {
      throw new ConflictError('last_owner', 'The organization would have no active owner left; make another user owner first');
    }
  }
}
