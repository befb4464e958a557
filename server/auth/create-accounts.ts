import type { Db, Transaction } from '../storage/open-database.js';
import type { RouteDefinition } from '../http/route.js';
import { ApiKeysRepository } from './api-keys/api-keys-repository.js';
import type { ApiKeysService } from './api-keys/api-keys-service.js';
import { ApiKeyResolver } from './credentials/api-key-resolver.js';
import type { CredentialResolver } from './credentials/credential-resolver.js';
import { SessionCookieResolver } from './credentials/session-cookie-resolver.js';
import { OrganizationsRepository } from './identity/organizations-repository.js';
import { UsersRepository } from './identity/users-repository.js';
import { organizationRoutes } from './organizations/organization-routes.js';
import { OrganizationSettingsService } from './organizations/organization-settings-service.js';
import { PasswordVerifier } from './passwords/password-hash.js';
import { SessionCookie } from './sessions/session-cookie.js';
import { SessionsRepository } from './sessions/sessions-repository.js';
import { sessionsRoutes } from './sessions/sessions-routes.js';
import { SessionsService } from './sessions/sessions-service.js';
import { SignInService } from './sessions/sign-in-service.js';
import { SignInThrottle } from './sessions/sign-in-throttle.js';
import { profileRoutes } from './users/profile-routes.js';
import { ProfileService } from './users/profile-service.js';
import { UsersService } from './users/users-service.js';

export interface AccountsDependencies {
  db: Db;
  /** The API key feature: the first credential /v1 looks for. */
  apiKeys: ApiKeysService;
  /** `server.public_url`: https makes the session cookie Secure and `__Host-` prefixed. */
  publicUrl: string;
  transaction: Transaction;
}

/** People in the product: sign-in, sessions, the caller's profile and the organization's settings. */
export function createAccounts({ db, apiKeys, publicUrl, transaction }: AccountsDependencies) {
  const users = new UsersRepository(db);
  const organizationSettings = new OrganizationSettingsService(new OrganizationsRepository(db));
  const sessions = new SessionsService(new SessionsRepository(db), (orgId) => organizationSettings.sessionLimits(orgId), transaction);
  const signIn = new SignInService(users, sessions, new PasswordVerifier(), new SignInThrottle());
  const profile = new ProfileService(users, sessions, signIn);
  const cookie = new SessionCookie(publicUrl);
  return {
    accounts: {
      sessions,
      signIn,
      profile,
      organizationSettings,
      users: new UsersService(users, sessions, new ApiKeysRepository(db), transaction),
    },
    /** The credentials `/v1` accepts, in the order they are looked for: an Authorization header wins over a session cookie. */
    credentials: [new ApiKeyResolver(apiKeys), new SessionCookieResolver(sessions, cookie)] satisfies CredentialResolver[],
    routes: (now: () => Date): RouteDefinition[] => [
      ...profileRoutes(profile, sessions, now),
      ...sessionsRoutes(sessions, cookie, now),
      ...organizationRoutes(organizationSettings),
    ],
  };
}
