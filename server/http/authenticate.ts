import type { Middleware } from 'koa';
import { AuthenticationError, PermissionError } from '../errors.js';
import type { AuthResult, CredentialResolver } from '../auth/credentials/credential-resolver.js';
import { allows, type Access, type Role, type Scope } from '../auth/permissions.js';
import type { CredentialKind, Principal } from '../auth/principal.js';

export type { AuthResult } from '../auth/credentials/credential-resolver.js';

/**
 * Resolves the credential but does not refuse yet: the rate limiter counts failed attempts
 * per client address first, and public routes need no credential at all. The first resolver
 * that finds its kind of credential decides: an Authorization header that fails never falls
 * back to a session cookie sent beside it.
 */
export function authenticate(resolvers: readonly CredentialResolver[], now: () => Date): Middleware {
  return (ctx, next) => {
    const at = now();
    let result: AuthResult | undefined;
    for (const resolver of resolvers) {
      result = resolver.resolve(ctx, at);
      if (result !== undefined) break;
    }
    ctx.state.auth = result ?? { error: missingCredential() };
    return next();
  };
}

function missingCredential(): AuthenticationError {
  return new AuthenticationError('missing_api_key', 'No API key; send the header Authorization: Bearer <key> (or sign in)');
}

export interface AccessRequirement {
  /** The key scope the route needs; routes outside every scope (the caller's own account) name none. */
  scope?: Scope;
  access: Access;
  /** The credential kinds the route accepts; every kind when absent. */
  credentials?: readonly CredentialKind[];
  /** Only users with one of these roles (service accounts have none); anyone when absent. */
  roles?: readonly Role[];
  /**
   * The caller's own account (profile, password, sessions): `access` is held against the credential's own
   * permission, not the role's, so a viewer may still change their password, but a read token may not.
   */
  selfService?: true;
}

/** The route-level check: an accepted credential, of a user with an accepted role, with this scope and at least this access. */
/** Fails closed: a request that reached a route without passing through authenticate() is unauthenticated. */
export function requirePrincipal(auth: AuthResult | undefined, requirement: AccessRequirement): Principal {
  if (auth === undefined) throw missingCredential();
  if ('error' in auth) throw auth.error;
  const { principal } = auth;
  const { kind } = principal.credential;
  if (requirement.credentials !== undefined && !requirement.credentials.includes(kind)) {
    throw new PermissionError(`This endpoint does not accept a ${credentialName[kind]}; use ${requirement.credentials.map((accepted) => credentialName[accepted]).join(' or ')}`, 'credential_not_accepted');
  }
  if (requirement.roles !== undefined && !(principal.actor.kind === 'user' && requirement.roles.includes(principal.actor.role))) {
    throw new PermissionError(`Only ${requirement.roles.join(' and ')} users may do this`);
  }
  if (requirement.scope !== undefined && !principal.scopes.includes(requirement.scope)) {
    throw new PermissionError(`This API key lacks the ${requirement.scope} scope`);
  }
  if (!allows(requirement.selfService ? principal.credential.permission : principal.access, requirement.access)) {
    throw new PermissionError(`${readOnlyCause(principal)}; this request needs ${requirement.access}`);
  }
  return principal;
}

const credentialName: Record<CredentialKind, string> = {
  personal_token: 'personal access token',
  service_account_key: 'service-account key',
  session: 'browser session',
  oauth_token: 'OAuth access token',
};

/** What holds a principal to read: the credential itself, or the role or service account it acts for. */
function readOnlyCause(principal: Principal): string {
  const { actor, credential } = principal;
  if (credential.permission === 'read') return 'This API key has read permission only';
  if (actor.kind === 'service_account') return 'This API key acts for a service account that has read permission only';
  return `This ${credentialName[credential.kind]} acts for a user whose role ${actor.role} has read permission only`;
}
