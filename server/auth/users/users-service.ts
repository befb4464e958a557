import { NotFoundError } from '../../errors.js';
import type { Transaction } from '../../storage/open-database.js';
import type { ApiKeysRepository } from '../api-keys/api-keys-repository.js';
import type { UsersRepository } from '../identity/users-repository.js';
import type { SessionsService } from '../sessions/sessions-service.js';

/**
 * What an administrator does to other users. A role change needs nothing here: a session reads the
 * role at every request and gets a new id at the first request after the change.
 */
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly sessions: SessionsService,
    private readonly apiKeys: ApiKeysRepository,
    private readonly transaction: Transaction,
  ) {}

  /** Disabling a user ends their sessions and revokes their personal tokens, in one transaction. */
  disable(orgId: string, userId: string, now: Date): void {
    this.transaction(() => {
      if (!this.users.setStatus(orgId, userId, 'disabled')) throw new NotFoundError(`No user ${userId}`, 'id');
      this.sessions.revokeOthers(userId, null);
      this.apiKeys.revokeOfUser(userId, now.toISOString());
    });
  }
}
