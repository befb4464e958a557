import type { Db, Transaction } from '../../storage/open-database.js';
import { IdentityService } from './identity-service.js';
import { OrganizationsRepository, type Organization } from './organizations-repository.js';
import { ServiceAccountsRepository } from './service-accounts-repository.js';
import { UsersRepository } from './users-repository.js';

export interface IdentityDependencies {
  db: Db;
  /** What every new organization starts with (the alerts feature's stock rules); runs in the creating transaction. */
  organizationCreated: (organization: Organization, now: Date) => void;
  transaction: Transaction;
}

/** Organizations, users and service accounts. */
export function createIdentity({ db, organizationCreated, transaction }: IdentityDependencies) {
  return {
    identity: new IdentityService(new OrganizationsRepository(db), new UsersRepository(db), new ServiceAccountsRepository(db), organizationCreated, transaction),
  };
}
