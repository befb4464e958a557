import type { SecretBox } from '../../common/secret-box.js';
import { GenerationCache, type TableGenerations } from '../storage/generation-cache.js';
import type { Db, Transaction } from '../storage/open-database.js';
import type { RouteDefinition } from '../http/route.js';
import type { Mailer } from '../mail/mailer.js';
import type { SmsSender } from '../sms/sms-sender.js';
import type { ApiKeysService } from './api-keys/api-keys-service.js';
import type { AuditLog } from './audit/audit-log.js';
import { AllowlistedResolver } from './credentials/allowlisted-resolver.js';
import { ApiKeyResolver } from './credentials/api-key-resolver.js';
import { OAuthTokenResolver } from './credentials/oauth-token-resolver.js';
import type { CredentialResolver } from './credentials/credential-resolver.js';
import { SessionCookieResolver, type CsrfTokenSource } from './credentials/session-cookie-resolver.js';
import { TwoFactorEnforcedResolver } from './credentials/two-factor-enforced-resolver.js';
import type { IdentityService } from './identity/identity-service.js';
import type { OrganizationSettingsRow } from './identity/organization.js';
import type { OAuthTokensService } from './oauth/oauth-tokens-service.js';
import { OneTimeLinks, type LinkHolders } from './one-time-links/one-time-links.js';
import { OneTimeLinksRepository } from './one-time-links/one-time-links-repository.js';
import type { IpAllowlist } from './organizations/ip-allowlist.js';
import { NetworkAccess, type AllowlistSettings } from './organizations/network-access.js';
import { organizationRoutes } from './organizations/organization-routes.js';
import { OrganizationSettingsService, type SettingsOrganizations } from './organizations/organization-settings-service.js';
import { RefusalSampler } from './organizations/refusal-sampler.js';
import { PasswordResetsService, type ResetUsers } from './password-resets/password-resets-service.js';
import { ResetRequestLimit } from './password-resets/reset-request-limit.js';
import { PasswordVerifier } from './passwords/password-hash.js';
import { PendingSignIns } from './sessions/pending-sign-ins.js';
import { SessionCookie } from './sessions/session-cookie.js';
import { SessionExpiryJob } from './sessions/session-expiry-job.js';
import type { LocateAddress } from './sessions/session-location.js';
import { SessionsRepository } from './sessions/sessions-repository.js';
import { sessionsRoutes } from './sessions/sessions-routes.js';
import { SessionsService } from './sessions/sessions-service.js';
import { SignInService, type PasswordSignInPolicy, type SignInUsers } from './sessions/sign-in-service.js';
import { SignInThrottle } from './sessions/sign-in-throttle.js';
import { PhoneBox } from './two-factor/phone-box.js';
import { SecondFactorSignIn, type PendingUsers } from './two-factor/second-factor-sign-in.js';
import { SmsCodes } from './two-factor/sms-codes.js';
import { SmsFactor } from './two-factor/sms-factor.js';
import { smsFactorRoutes } from './two-factor/sms-factor-routes.js';
import { SmsSendLimit } from './two-factor/sms-send-limit.js';
import { TwoFactorRepository } from './two-factor/two-factor-repository.js';
import { twoFactorRoutes } from './two-factor/two-factor-routes.js';
import { TwoFactorService, type FactorUsers } from './two-factor/two-factor-service.js';
import { TwoFactorStandings, type StandingUsers } from './two-factor/two-factor-standings.js';
import { InvitationsService, type InvitedUsers, type InvitingOrganizations } from './users/invitations-service.js';
import { profileRoutes } from './users/profile-routes.js';
import { ProfileService, type ProfileUsers } from './users/profile-service.js';
import { usersRoutes } from './users/users-routes.js';
import { UsersService, type ManagedUsers, type UserTokens } from './users/users-service.js';

export interface AccountsDependencies {
  db: Db;
  identity: IdentityService;
  /** The identity feature's records of users and organizations. */
  users: SignInUsers & ProfileUsers & ManagedUsers & InvitedUsers & LinkHolders & ResetUsers & PendingUsers & FactorUsers & StandingUsers;
  organizations: SettingsOrganizations & AllowlistSettings & InvitingOrganizations;
  /** Every account change and sign-in is recorded in the transaction of the change. */
  audit: AuditLog;
  /** Change counters of the credential tables: the organizations' parsed allowlists are kept until one changes. */
  generations: TableGenerations;
  /** The API key feature: the credential /v1 looks for in an Authorization header. */
  apiKeys: ApiKeysService;
  /** The API key feature's records: a disabled user's personal tokens go with them. */
  personalKeys: UserTokens;
  /** OAuth access tokens (`dbm_oat_...`), looked for before keys in the same header; a disabled user's are revoked. */
  oauthTokens: OAuthTokensService;
  /** `server.public_url`: the origin of invitation and password-reset links; https makes the session cookie Secure and `__Host-` prefixed. */
  publicUrl: string;
  /** Present when `email.smtp_url` is configured: links are then mailed too. */
  mailer?: Mailer | undefined;
  /** Where a session's client address is (`geoip.database`). */
  locate: LocateAddress;
  /** Seals TOTP secrets and phone numbers at rest. */
  secretBox: SecretBox;
  /** Present when `sms.sender` is configured: SMS codes are offered as a second factor. */
  smsSender?: SmsSender | undefined;
  /** Whether a password may sign a user in (the SAML feature keeps members of an organization that uses it off passwords). */
  passwordPolicy: PasswordSignInPolicy;
  transaction: Transaction;
}

/** People in the product: sign-in, sessions, the caller's profile, the organization's users and settings, invitations and password resets. */
export function createAccounts({ db, identity, users, organizations, audit, generations, apiKeys, personalKeys, oauthTokens, publicUrl, mailer, locate, secretBox, smsSender, passwordPolicy, transaction }: AccountsDependencies) {
  const organizationSettings = new OrganizationSettingsService(organizations, audit, transaction, new GenerationCache<OrganizationSettingsRow | undefined>(generations, 'credentials'));
  const sessions = new SessionsService(new SessionsRepository(db), (orgId) => organizationSettings.sessionLimits(orgId), transaction, audit);
  const pendingSignIns = new PendingSignIns();
  const signIn = new SignInService(users, sessions, new PasswordVerifier(), new SignInThrottle(), audit, transaction, pendingSignIns, passwordPolicy);
  const profile = new ProfileService(users, sessions, signIn, audit, transaction);
  const network = new NetworkAccess(organizations, new GenerationCache<IpAllowlist>(generations, 'credentials'), audit, new RefusalSampler());
  const links = new OneTimeLinks(new OneTimeLinksRepository(db), users, publicUrl, transaction);
  const organizationUsers = new UsersService(users, sessions, personalKeys, oauthTokens, links, audit, transaction);
  const invitations = new InvitationsService(identity, users, organizations, links, audit, mailer, transaction);
  const twoFactorMethods = new TwoFactorRepository(db);
  const twoFactor = new TwoFactorService(twoFactorMethods, users, sessions, signIn, secretBox, audit, transaction);
  const phones = new PhoneBox(secretBox);
  // The second half of migration 0018, which needs the secret key: numbers stored in the clear before it are sealed now.
  twoFactorMethods.sealPlainPhones((row) => phones.seal(row.user_id, row.phone));
  const sms = new SmsFactor(twoFactorMethods, twoFactor, new SmsCodes(), new SmsSendLimit(), smsSender, phones);
  const twoFactorStandings = new TwoFactorStandings(organizationSettings, users);
  const cookie = new SessionCookie(publicUrl);
  /** Every credential is refused from outside its organization's IP allowlist, and a user's past their two-factor deadline. */
  const guarded = (resolver: CredentialResolver): CredentialResolver => new TwoFactorEnforcedResolver(new AllowlistedResolver(resolver, network), twoFactorStandings);
  return {
    accounts: {
      sessions,
      signIn,
      profile,
      organizationSettings,
      users: organizationUsers,
      invitations,
      passwordResets: new PasswordResetsService(users, links, sessions, new ResetRequestLimit(), audit, mailer),
      /** The organizations' IP allowlists, applied to every credential. */
      network,
      twoFactor,
      /** SMS codes as a second factor: phone enrollment and sign-in codes. */
      sms,
      /** The second step of a sign-in with a second factor. */
      secondFactorSignIn: new SecondFactorSignIn(pendingSignIns, users, twoFactor, sms, signIn, new SignInThrottle(), audit),
      /** Where each member stands with their organization's two-factor requirement. */
      twoFactorStandings,
    },
    /**
     * The credentials `/v1` accepts, in the order they are looked for: an Authorization header wins
     * over a session cookie.
     */
    credentials: [new OAuthTokenResolver(oauthTokens), new ApiKeyResolver(apiKeys), new SessionCookieResolver(sessions, cookie)].map(guarded),
    routes: (now: () => Date): RouteDefinition[] => [
      ...profileRoutes(profile, sessions, now),
      ...twoFactorRoutes(twoFactor, profile, now),
      ...smsFactorRoutes(sms, profile, now),
      ...sessionsRoutes(sessions, cookie, locate, now),
      ...organizationRoutes(organizationSettings, now),
      ...usersRoutes(organizationUsers, invitations, now),
    ],
    /** Deletes expired sessions in the background. */
    sessionExpiry: new SessionExpiryJob(sessions),
    /** The pages' session cookie, and their one credential: that cookie, with the CSRF token from `csrfToken` (a form field). */
    cookie,
    pageCredentials: (csrfToken: CsrfTokenSource): CredentialResolver[] => [new AllowlistedResolver(new SessionCookieResolver(sessions, cookie, csrfToken), network)],
  };
}

/** The account services (sessions, sign-in, profile, users, settings, links, network access). */
export type Accounts = ReturnType<typeof createAccounts>['accounts'];
