import { NotFoundError } from '../../errors.js';
import type { Transaction } from '../../storage/open-database.js';
import type { ApiKeysRepository } from '../api-keys/api-keys-repository.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditOrigin } from '../audit/audit-origin.js';
import type { UsersRepository } from '../identity/users-repository.js';
import type { Role } from '../permissions.js';
import type { SessionsService } from '../sessions/sessions-service.js';

/** What an administrator (`origin`, in its organization) does to other users, each change audited in its own transaction. */
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly sessions: SessionsService,
    private readonly apiKeys: ApiKeysRepository,
    private readonly audit: AuditLog,
    private readonly transaction: Transaction,
  ) {}

  /** Disabling a user ends their sessions and revokes their personal tokens, in one transaction. */
  disable(origin: AuditOrigin, userId: string, now: Date): void {
    this.transaction(() => {
      if (!this.users.setStatus(origin.orgId, userId, 'disabled')) throw new NotFoundError(`No user ${userId}`, 'id');
      this.audit.record({ origin, action: 'user.disabled', target: { type: 'user', id: userId } }, now);
      this.sessions.revokeOthers(origin, userId, null, now);
      this.apiKeys.revokeOfUser(userId, now.toISOString());
    });
  }

  /**
   * A role change needs nothing more here: a session reads the role at every request and gets a new
   * id at the first request after the change; a personal token acts with the role at request time.
   */
  changeRole(origin: AuditOrigin, userId: string, role: Role, now: Date): void {
    this.transaction(() => {
      const user = this.users.findById(origin.orgId, userId);
      if (user === undefined) throw new NotFoundError(`No user ${userId}`, 'id');
      if (user.role === role) return;
      this.users.setRole(origin.orgId, userId, role);
      this.audit.record({ origin, action: 'user.role_changed', target: { type: 'user', id: userId }, details: { from: user.role, to: role } }, now);
    });
  }
}
