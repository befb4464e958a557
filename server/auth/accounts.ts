import type { Db, Transaction } from '../storage/open-database.js';
import type { RouteDefinition } from '../http/route.js';
import type { ApiKeysService } from './api-keys/api-keys-service.js';
import { AuditLog } from './audit/audit-log.js';
import { AuditRepository } from './audit/audit-repository.js';
import { auditRoutes } from './audit/audit-routes.js';
import { AllowlistedResolver } from './credentials/allowlisted-resolver.js';
import { ApiKeyResolver } from './credentials/api-key-resolver.js';
import type { CredentialResolver } from './credentials/credential-resolver.js';
import { SessionCookieResolver } from './credentials/session-cookie-resolver.js';
import type { OrganizationsRepository } from './identity/organizations-repository.js';
import { UsersRepository } from './identity/users-repository.js';
import type { IpAllowlist } from './organizations/ip-allowlist.js';
import { NetworkAccess } from './organizations/network-access.js';
import { organizationRoutes } from './organizations/organization-routes.js';
import { OrganizationSettingsService } from './organizations/organization-settings-service.js';
import { RefusalSampler } from './organizations/refusal-sampler.js';
import { PasswordVerifier } from './passwords/password-hash.js';
import type { SessionCookie } from './sessions/session-cookie.js';
import { SessionsRepository } from './sessions/sessions-repository.js';
import { sessionsRoutes } from './sessions/sessions-routes.js';
import { SessionsService } from './sessions/sessions-service.js';
import { SignInService } from './sessions/sign-in-service.js';
import { SignInThrottle } from './sessions/sign-in-throttle.js';
import { profileRoutes } from './users/profile-routes.js';
import { ProfileService } from './users/profile-service.js';
import { UsersService } from './users/users-service.js';
import { ApiKeysRepository } from './api-keys/api-keys-repository.js';
import { GenerationCache, TableGenerations } from '../storage/generation-cache.js';

/** People in the product: sign-in, sessions, the caller's profile, the organization's settings and its audit log. */
export interface Accounts {
  /** Written by every account service (and API keys) in the transaction of the change; `audit.expire(now)` is a storage maintenance slice. */
  audit: AuditLog;
  sessions: SessionsService;
  signIn: SignInService;
  profile: ProfileService;
  organizationSettings: OrganizationSettingsService;
  users: UsersService;
  /** The organizations' IP allowlists, applied to every credential. */
  network: NetworkAccess;
}

export function createAccounts(db: Db, organizations: OrganizationsRepository, transaction: Transaction): Accounts {
  const users = new UsersRepository(db);
  const audit = new AuditLog(new AuditRepository(db));
  const organizationSettings = new OrganizationSettingsService(organizations, audit, transaction);
  const sessions = new SessionsService(new SessionsRepository(db), (orgId) => organizationSettings.sessionLimits(orgId), transaction, audit);
  const signIn = new SignInService(users, sessions, new PasswordVerifier(), new SignInThrottle(), audit, transaction);
  const allowlists = new GenerationCache<IpAllowlist>(new TableGenerations(db), 'credentials');
  return {
    audit,
    sessions,
    signIn,
    profile: new ProfileService(users, sessions, signIn, audit, transaction),
    organizationSettings,
    users: new UsersService(users, sessions, new ApiKeysRepository(db), audit, transaction),
    network: new NetworkAccess(organizations, allowlists, audit, new RefusalSampler()),
  };
}

/**
 * The credentials `/v1` accepts, in the order they are looked for: an Authorization header wins over a session cookie.
 * Each is refused from outside its organization's IP allowlist.
 */
export function credentialResolvers(apiKeys: ApiKeysService, accounts: Accounts, cookie: SessionCookie): CredentialResolver[] {
  return [new ApiKeyResolver(apiKeys), new SessionCookieResolver(accounts.sessions, cookie)].map(
    (resolver) => new AllowlistedResolver(resolver, accounts.network),
  );
}

export function accountsRoutes(accounts: Accounts, cookie: SessionCookie, now: () => Date): RouteDefinition[] {
  return [
    ...profileRoutes(accounts.profile, accounts.sessions, now),
    ...sessionsRoutes(accounts.sessions, cookie, now),
    ...organizationRoutes(accounts.organizationSettings, now),
    ...auditRoutes(accounts.audit),
  ];
}
