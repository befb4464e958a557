import { ApiKeysRepository } from './auth/api-keys/api-keys-repository.js';
import { ApiKeysService } from './auth/api-keys/api-keys-service.js';
import { IdentityService } from './auth/identity/identity-service.js';
import { OrganizationsRepository } from './auth/identity/organizations-repository.js';
import { ServiceAccountsRepository } from './auth/identity/service-accounts-repository.js';
import { UsersRepository } from './auth/identity/users-repository.js';
import { SecretBox } from './crypto/secret-box.js';
import { DatabasesRepository } from './databases/databases-repository.js';
import { DatabasesService } from './databases/databases-service.js';
import type { Db } from './storage/open-database.js';

export interface Services {
  organizations: OrganizationsRepository;
  identity: IdentityService;
  apiKeys: ApiKeysService;
  databases: DatabasesService;
  /** Runs `work` in one SQLite transaction; it must not await. */
  transaction: <T>(work: () => T) => T;
}

/** Wires repositories into services over one open state database; shared by the server and the operator CLI. */
export function createServices(db: Db, secretKey: Buffer): Services {
  const organizations = new OrganizationsRepository(db);
  const identity = new IdentityService(organizations, new UsersRepository(db), new ServiceAccountsRepository(db));
  return {
    organizations,
    identity,
    apiKeys: new ApiKeysService(new ApiKeysRepository(db), identity),
    databases: new DatabasesService(new DatabasesRepository(db), new SecretBox(secretKey)),
    transaction: (work) => db.transaction(work)(),
  };
}
