import type { RouteDefinition } from '../../http/route.js';
import type { Db, Transaction } from '../../storage/open-database.js';
import type { AuditLog } from '../audit/audit-log.js';
import { OAuthApplicationsRepository } from './oauth-applications-repository.js';
import { OAuthApplicationsService } from './oauth-applications-service.js';
import { OAuthAuthorizationService } from './oauth-authorization-service.js';
import { OAuthGrantsRepository } from './oauth-grants-repository.js';
import { oauthRoutes } from './oauth-routes.js';
import { OAuthTokensService } from './oauth-tokens-service.js';
import { TokenEndpointThrottle } from './token-endpoint-throttle.js';

export interface OAuthDependencies {
  db: Db;
  /** Applications registered and deleted, authorizations granted and withdrawn, in their transaction. */
  audit: AuditLog;
  /** `server.public_url`: the issuer. */
  publicUrl: string;
  transaction: Transaction;
}

/** dbmon as an OAuth 2.0 authorization server for third-party applications acting for users. */
export function createOAuth({ db, audit, publicUrl, transaction }: OAuthDependencies) {
  const issuer = publicUrl.replace(/\/+$/, '');
  const grants = new OAuthGrantsRepository(db);
  const applications = new OAuthApplicationsService(new OAuthApplicationsRepository(db), audit, transaction);
  const tokens = new OAuthTokensService(grants, audit, transaction);
  const authorization = new OAuthAuthorizationService(applications, grants, audit, transaction, issuer);
  const throttle = new TokenEndpointThrottle();
  return {
    oauth: { applications, tokens, authorization },
    routes: (now: () => Date): RouteDefinition[] => oauthRoutes({ applications, tokens, throttle, issuer, now }),
  };
}

/** The OAuth services: applications, the authorization endpoint's, and tokens. */
export type OAuth = ReturnType<typeof createOAuth>['oauth'];
