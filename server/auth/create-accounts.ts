import { GenerationCache, type TableGenerations } from '../storage/generation-cache.js';
import type { Db, Transaction } from '../storage/open-database.js';
import type { RouteDefinition } from '../http/route.js';
import type { Mailer } from '../mail/mailer.js';
import { ApiKeysRepository } from './api-keys/api-keys-repository.js';
import type { ApiKeysService } from './api-keys/api-keys-service.js';
import type { AuditLog } from './audit/audit-log.js';
import { AllowlistedResolver } from './credentials/allowlisted-resolver.js';
import { ApiKeyResolver } from './credentials/api-key-resolver.js';
import { OAuthTokenResolver } from './credentials/oauth-token-resolver.js';
import type { CredentialResolver } from './credentials/credential-resolver.js';
import { SessionCookieResolver, type CsrfTokenSource } from './credentials/session-cookie-resolver.js';
import type { IdentityService } from './identity/identity-service.js';
import { OrganizationsRepository } from './identity/organizations-repository.js';
import { UsersRepository } from './identity/users-repository.js';
import type { OAuthTokensService } from './oauth/oauth-tokens-service.js';
import { OneTimeLinks } from './one-time-links/one-time-links.js';
import { OneTimeLinksRepository } from './one-time-links/one-time-links-repository.js';
import type { IpAllowlist } from './organizations/ip-allowlist.js';
import { NetworkAccess } from './organizations/network-access.js';
import { organizationRoutes } from './organizations/organization-routes.js';
import { OrganizationSettingsService } from './organizations/organization-settings-service.js';
import { RefusalSampler } from './organizations/refusal-sampler.js';
import { PasswordResetsService } from './password-resets/password-resets-service.js';
import { PasswordVerifier } from './passwords/password-hash.js';
import { SessionCookie } from './sessions/session-cookie.js';
import { SessionsRepository } from './sessions/sessions-repository.js';
import { sessionsRoutes } from './sessions/sessions-routes.js';
import { SessionsService } from './sessions/sessions-service.js';
import { SignInService } from './sessions/sign-in-service.js';
import { SignInThrottle } from './sessions/sign-in-throttle.js';
import { InvitationsService } from './users/invitations-service.js';
import { profileRoutes } from './users/profile-routes.js';
import { ProfileService } from './users/profile-service.js';
import { usersRoutes } from './users/users-routes.js';
import { UsersService } from './users/users-service.js';

export interface AccountsDependencies {
  db: Db;
  identity: IdentityService;
  /** Every account change and sign-in is recorded in the transaction of the change. */
  audit: AuditLog;
  /** Change counters of the credential tables: the organizations' parsed allowlists are kept until one changes. */
  generations: TableGenerations;
  /** The API key feature: the credential /v1 looks for in an Authorization header. */
  apiKeys: ApiKeysService;
  /** OAuth access tokens (`dbm_oat_...`), looked for before keys in the same header. */
  oauthTokens: OAuthTokensService;
  /** `server.public_url`: the origin of invitation and password-reset links; https makes the session cookie Secure and `__Host-` prefixed. */
  publicUrl: string;
  /** Present when `email.smtp_url` is configured: links are then mailed too. */
  mailer?: Mailer | undefined;
  transaction: Transaction;
}

/** People in the product: sign-in, sessions, the caller's profile, the organization's users and settings, invitations and password resets. */
export function createAccounts({ db, identity, audit, generations, apiKeys, oauthTokens, publicUrl, mailer, transaction }: AccountsDependencies) {
  const users = new UsersRepository(db);
  const organizations = new OrganizationsRepository(db);
  const organizationSettings = new OrganizationSettingsService(organizations, audit, transaction);
  const sessions = new SessionsService(new SessionsRepository(db), (orgId) => organizationSettings.sessionLimits(orgId), transaction, audit);
  const signIn = new SignInService(users, sessions, new PasswordVerifier(), new SignInThrottle(), audit, transaction);
  const profile = new ProfileService(users, sessions, signIn, audit, transaction);
  const network = new NetworkAccess(organizations, new GenerationCache<IpAllowlist>(generations, 'credentials'), audit, new RefusalSampler());
  const links = new OneTimeLinks(new OneTimeLinksRepository(db), users, publicUrl, transaction);
  const organizationUsers = new UsersService(users, sessions, new ApiKeysRepository(db), links, audit, transaction);
  const invitations = new InvitationsService(identity, users, organizations, links, mailer, transaction);
  const cookie = new SessionCookie(publicUrl);
  return {
    accounts: {
      sessions,
      signIn,
      profile,
      organizationSettings,
      users: organizationUsers,
      invitations,
      passwordResets: new PasswordResetsService(users, links, sessions, mailer),
      /** The organizations' IP allowlists, applied to every credential. */
      network,
    },
    /**
     * The credentials `/v1` accepts, in the order they are looked for: an Authorization header wins
     * over a session cookie. Each is refused from outside its organization's IP allowlist.
     */
    credentials: [new OAuthTokenResolver(oauthTokens), new ApiKeyResolver(apiKeys), new SessionCookieResolver(sessions, cookie)].map(
      (resolver): CredentialResolver => new AllowlistedResolver(resolver, network),
    ),
    routes: (now: () => Date): RouteDefinition[] => [
      ...profileRoutes(profile, sessions, now),
      ...sessionsRoutes(sessions, cookie, now),
      ...organizationRoutes(organizationSettings, now),
      ...usersRoutes(organizationUsers, invitations, now),
    ],
    /** The pages' session cookie, and their one credential: that cookie, with the CSRF token from `csrfToken` (a form field). */
    cookie,
    pageCredentials: (csrfToken: CsrfTokenSource): CredentialResolver[] => [new AllowlistedResolver(new SessionCookieResolver(sessions, cookie, csrfToken), network)],
  };
}

/** The account services (sessions, sign-in, profile, users, settings, links, network access). */
export type Accounts = ReturnType<typeof createAccounts>['accounts'];
