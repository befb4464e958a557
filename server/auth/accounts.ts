import type { Db, Transaction } from '../storage/open-database.js';
import type { RouteDefinition } from '../http/route.js';
import type { ApiKeysService } from './api-keys/api-keys-service.js';
import { ApiKeyResolver } from './credentials/api-key-resolver.js';
import type { CredentialResolver } from './credentials/credential-resolver.js';
import { SessionCookieResolver } from './credentials/session-cookie-resolver.js';
import type { IdentityService } from './identity/identity-service.js';
import type { OrganizationsRepository } from './identity/organizations-repository.js';
import { UsersRepository } from './identity/users-repository.js';
import { organizationRoutes } from './organizations/organization-routes.js';
import { OrganizationSettingsService } from './organizations/organization-settings-service.js';
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
import type { Mailer } from '../mail/mailer.js';
import { OneTimeLinks } from './one-time-links/one-time-links.js';
import { OneTimeLinksRepository } from './one-time-links/one-time-links-repository.js';
import { PasswordResetsService } from './password-resets/password-resets-service.js';
import { InvitationsService } from './users/invitations-service.js';
import { usersRoutes } from './users/users-routes.js';

/** People in the product: sign-in, sessions, the caller's profile, the organization's users and settings, invitations and password resets. */
export interface Accounts {
  sessions: SessionsService;
  signIn: SignInService;
  profile: ProfileService;
  organizationSettings: OrganizationSettingsService;
  users: UsersService;
  invitations: InvitationsService;
  passwordResets: PasswordResetsService;
}

export interface AccountsOptions {
  identity: IdentityService;
  /** `server.public_url`: the origin of invitation and password-reset links. */
  publicUrl: string;
  /** Present when `email.smtp_url` is configured: links are then mailed too. */
  mailer?: Mailer | undefined;
}

export function createAccounts(db: Db, organizations: OrganizationsRepository, transaction: Transaction, options: AccountsOptions): Accounts {
  const users = new UsersRepository(db);
  const organizationSettings = new OrganizationSettingsService(organizations);
  const sessions = new SessionsService(new SessionsRepository(db), (orgId) => organizationSettings.sessionLimits(orgId), transaction);
  const signIn = new SignInService(users, sessions, new PasswordVerifier(), new SignInThrottle());
  const links = new OneTimeLinks(new OneTimeLinksRepository(db), users, options.publicUrl, transaction);
  return {
    sessions,
    signIn,
    profile: new ProfileService(users, sessions, signIn),
    organizationSettings,
    users: new UsersService(users, sessions, new ApiKeysRepository(db), links, transaction),
    invitations: new InvitationsService(options.identity, users, organizations, links, options.mailer, transaction),
    passwordResets: new PasswordResetsService(users, links, sessions, options.mailer),
  };
}

/** The credentials `/v1` accepts, in the order they are looked for: an Authorization header wins over a session cookie. */
export function credentialResolvers(apiKeys: ApiKeysService, accounts: Accounts, cookie: SessionCookie): CredentialResolver[] {
  return [new ApiKeyResolver(apiKeys), new SessionCookieResolver(accounts.sessions, cookie)];
}

export function accountsRoutes(accounts: Accounts, cookie: SessionCookie, now: () => Date): RouteDefinition[] {
  return [
    ...profileRoutes(accounts.profile, accounts.sessions, now),
    ...sessionsRoutes(accounts.sessions, cookie, now),
    ...organizationRoutes(accounts.organizationSettings),
    ...usersRoutes(accounts.users, accounts.invitations, now),
  ];
}
