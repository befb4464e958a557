import type { Db, Transaction } from '../../storage/open-database.js';
import { IdentityService } from './identity-service.js';
import type { Organization } from './organization.js';
import { OrganizationsRepository } from './organizations-repository.js';
import { ServiceAccountsRepository } from './service-accounts-repository.js';
import { UsersRepository } from './users-repository.js';

export interface IdentityDependencies {
  db: Db;
  /** What every new organization starts with (the alerts feature's stock rules); runs in the creating transaction. */
  organizationCreated: (organization: Organization, now: Date) => void;
  transaction: Transaction;
}

/**
 * Organizations, users and service accounts. Besides its service it offers the records of users and
 * organizations for the ports the account features declare; they never import them.
 */
export function createIdentity({ db, organizationCreated, transaction }: IdentityDependencies) {
  const organizations = new OrganizationsRepository(db);
  const users = new UsersRepository(db);
  return {
    identity: new IdentityService(organizations, users, new ServiceAccountsRepository(db), organizationCreated, transaction),
    users,
    organizations,
  };
}
