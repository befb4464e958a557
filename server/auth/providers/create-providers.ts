import type { SecretBox } from '../../../common/secret-box.js';
import type { RouteDefinition } from '../../http/route.js';
import type { Db, Transaction } from '../../storage/open-database.js';
import type { AuditLog } from '../audit/audit-log.js';
import { IdentityProvidersRepository } from './identity-providers-repository.js';
import { identityProvidersRoutes } from './identity-providers-routes.js';
import { IdentityProvidersService, type ProviderOrganizations } from './identity-providers-service.js';
import type { ProviderEndpoints } from './provider-endpoints.js';
import { ProviderSignInService, type ProviderSessions, type ProviderUsers } from './provider-sign-in-service.js';
import { ProviderSignIns } from './provider-sign-ins.js';
import { AddressLimit } from '../throttling/address-limit.js';
import { UserIdentitiesRepository } from './user-identities-repository.js';
import { UserIdentitiesService } from './user-identities-service.js';

/** Sign-ins one client address may start in 15 minutes, so it cannot push out everyone else's or relay requests to the provider. */
export const providerStartsPerAddress = 60;

export interface ProvidersDependencies {
  db: Db;
  users: ProviderUsers;
  organizations: ProviderOrganizations;
  /** The sign-in feature: a user a provider vouched for gets a session (or a pending second factor) there. */
  sessions: ProviderSessions;
  /** Seals client secrets at rest. */
  secretBox: SecretBox;
  endpoints: ProviderEndpoints;
  /** `server.public_url`: the origin of the callback addresses. */
  publicUrl: string;
  audit: AuditLog;
  transaction: Transaction;
}

/** Sign-in through external providers (GitHub, Google, Microsoft, GitLab): each organization's settings, the sign-in itself, and users' linked identities. */
export function createProviders({ db, users, organizations, sessions, secretBox, endpoints, publicUrl, audit, transaction }: ProvidersDependencies) {
  const identitiesRepository = new UserIdentitiesRepository(db);
  const settings = new IdentityProvidersService(new IdentityProvidersRepository(db), organizations, secretBox, endpoints, publicUrl.replace(/\/+$/, ''), audit, transaction);
  const identities = new UserIdentitiesService(identitiesRepository, users, audit, transaction);
  const signIn = new ProviderSignInService(settings, new ProviderSignIns(), new AddressLimit(providerStartsPerAddress, 15 * 60_000), identitiesRepository, users, sessions, audit, transaction);
  return {
    providers: { settings, identities, signIn },
    routes: (now: () => Date): RouteDefinition[] => identityProvidersRoutes(settings, identities, now),
  };
}

/** The provider services: settings, sign-in and identities. */
export type Providers = ReturnType<typeof createProviders>['providers'];
