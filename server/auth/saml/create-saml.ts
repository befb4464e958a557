import type { RouteDefinition } from '../../http/route.js';
import type { Db, Transaction } from '../../storage/open-database.js';
import type { AuditLog } from '../audit/audit-log.js';
import { SamlExpiryJob } from './saml-expiry-job.js';
import { SamlPasswordPolicy } from './saml-password-policy.js';
import { SamlRepository } from './saml-repository.js';
import { samlRoutes } from './saml-routes.js';
import { SamlServiceProvider } from './saml-service-provider.js';
import { SamlSettingsService, type SamlOrganizations } from './saml-settings-service.js';
import { SamlSignIn, type SamlUsers, type SsoSignIn } from './saml-sign-in.js';

export interface SamlDependencies {
  db: Db;
  organizations: SamlOrganizations;
  /** Finds the users a response names and, with just-in-time provisioning, creates them. */
  users: SamlUsers;
  /** The sessions feature: a vouched-for user to a session (or to the second factor). */
  sessions: SsoSignIn;
  audit: AuditLog;
  /** `server.public_url`: the origin of `{org_url}`. */
  publicUrl: string;
  transaction: Transaction;
}

/** SAML 2.0 single sign-on per organization: settings, test, sign-in at the ACS, and the password policy it brings. */
export function createSaml({ db, organizations, users, sessions, audit, publicUrl, transaction }: SamlDependencies) {
  const repository = new SamlRepository(db);
  const settings = new SamlSettingsService(repository, organizations, audit, transaction, publicUrl);
  const signIn = new SamlSignIn(settings, organizations, repository, new SamlServiceProvider(), users, sessions, audit, transaction, publicUrl);
  return {
    saml: { settings, signIn },
    passwordPolicy: new SamlPasswordPolicy(settings, audit),
    /** Forgets expired requests and used assertions in the background. */
    expiry: new SamlExpiryJob(repository),
    routes: (now: () => Date): RouteDefinition[] => samlRoutes(settings, signIn, now),
  };
}

/** The SAML services the pages use. */
export type Saml = ReturnType<typeof createSaml>['saml'];
