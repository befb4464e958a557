import { ConflictError, NotFoundError } from '../../errors.js';
import type { Transaction } from '../../storage/open-database.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditOrigin } from '../audit/audit-origin.js';
import type { UserIdentitiesRepository, UserIdentityRow } from './user-identities-repository.js';

/** Whether the user has a password to sign in with. */
export interface IdentityOwners {
  findByIdInAnyOrganization(id: string): { password_hash: string | null } | undefined;
}

/** The identities a user linked, and unlinking one that is not their last way to sign in. */
export class UserIdentitiesService {
  constructor(
    private readonly identities: UserIdentitiesRepository,
    private readonly owners: IdentityOwners,
    private readonly audit: AuditLog,
    private readonly transaction: Transaction,
  ) {}

  of(userId: string): UserIdentityRow[] {
    return this.identities.ofUser(userId);
  }

  unlink(origin: AuditOrigin, userId: string, id: string, now: Date): void {
    this.transaction(() => {
      const all = this.identities.ofUser(userId);
      const identity = all.find((candidate) => candidate.id === id);
      if (identity === undefined) throw new NotFoundError('No such identity', 'id');
      const hasPassword = this.owners.findByIdInAnyOrganization(userId)?.password_hash != null;
      if (!hasPassword && all.length === 1) {
        throw new ConflictError('last_sign_in_method', 'This identity is your only way to sign in: set a password or link another identity first');
      }
      this.identities.delete(userId, id);
      this.audit.record({ origin, action: 'identity.unlinked', target: { type: 'identity', id }, details: { provider: identity.provider, email: identity.email } }, now);
    });
  }
}
