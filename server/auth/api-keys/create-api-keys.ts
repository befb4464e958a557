import type { IdentityService } from '../identity/identity-service.js';
import { GenerationCache, type TableGenerations } from '../../storage/generation-cache.js';
import type { Db } from '../../storage/open-database.js';
import { ApiKeysRepository } from './api-keys-repository.js';
import { apiKeysRoutes } from './api-keys-routes.js';
import { ApiKeysService } from './api-keys-service.js';

export interface ApiKeysDependencies {
  db: Db;
  identity: IdentityService;
  generations: TableGenerations;
  /** Config api_keys.max_live_per_organization. */
  maxLivePerOrganization?: number | undefined;
}

/** API keys: their management and the lookup behind every authenticated request. */
export function createApiKeys({ db, identity, generations, maxLivePerOrganization }: ApiKeysDependencies) {
  const apiKeys = new ApiKeysService(new ApiKeysRepository(db), identity, new GenerationCache(generations, 'credentials'), maxLivePerOrganization);
  return { apiKeys, routes: (now: () => Date) => apiKeysRoutes(apiKeys, now) };
}
