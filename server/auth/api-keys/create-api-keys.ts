import type { AuditLog } from '../audit/audit-log.js';
import type { IdentityService } from '../identity/identity-service.js';
import { GenerationCache, type TableGenerations } from '../../storage/generation-cache.js';
import type { Db, Transaction } from '../../storage/open-database.js';
import { ApiKeysRepository } from './api-keys-repository.js';
import { apiKeysRoutes } from './api-keys-routes.js';
import { ApiKeysService } from './api-keys-service.js';

export interface ApiKeysDependencies {
  db: Db;
  identity: IdentityService;
  generations: TableGenerations;
  /** Key creation and revocation are audited in their transaction. */
  audit: AuditLog;
  transaction: Transaction;
  /** Config api_keys.max_live_per_organization. */
  maxLivePerOrganization?: number | undefined;
}

/** API keys: their management and the lookup behind every authenticated request; their records for the ports of the account features. */
export function createApiKeys({ db, identity, generations, audit, transaction, maxLivePerOrganization }: ApiKeysDependencies) {
  const records = new ApiKeysRepository(db);
  const apiKeys = new ApiKeysService(
    records,
    identity,
    audit,
    transaction,
    new GenerationCache(generations, 'credentials'),
    maxLivePerOrganization,
  );
  return { apiKeys, records, routes: (now: () => Date) => apiKeysRoutes(apiKeys, now) };
}
