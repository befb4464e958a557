import type { Middleware } from 'koa';
import { AuthenticationError, PermissionError } from '../errors.js';
import type { ApiKeysService } from '../auth/api-keys/api-keys-service.js';
import { allows, type Access, type Scope } from '../auth/permissions.js';
import type { Principal } from '../auth/principal.js';

export type AuthResult = { principal: Principal } | { error: AuthenticationError };

/**
 * Resolves the credential but does not refuse yet: the rate limiter counts failed attempts
 * per client address first, and public routes need no credential at all.
 */
export function authenticate(apiKeys: ApiKeysService, now: () => Date): Middleware {
  return async (ctx, next) => {
    ctx.state.auth = resolve(apiKeys, ctx.get('Authorization'), now());
    await next();
  };
}

function resolve(apiKeys: ApiKeysService, header: string, now: Date): AuthResult {
  if (header === '') {
    return { error: new AuthenticationError('missing_api_key', 'No API key; send the header Authorization: Bearer <key>') };
  }
  const match = /^Bearer +(\S+)$/i.exec(header);
  if (match === null) {
    return { error: new AuthenticationError('malformed_api_key', 'The Authorization header must be Bearer <key>') };
  }
  try {
    return { principal: apiKeys.authenticate(match[1]!, now) };
  } catch (error) {
    if (error instanceof AuthenticationError) return { error };
    throw error;
  }
}

export interface AccessRequirement {
  scope: Scope;
  access: Access;
}

/** The route-level check: a principal with this scope and at least this access. */
export function requirePrincipal(auth: AuthResult | undefined, requirement: AccessRequirement): Principal {
  if (auth === undefined) throw new Error('authenticate() middleware is not mounted');
  if ('error' in auth) throw auth.error;
  const { principal } = auth;
  if (!principal.scopes.includes(requirement.scope)) {
    throw new PermissionError(`This API key lacks the ${requirement.scope} scope`);
  }
  if (!allows(principal.access, requirement.access)) {
    throw new PermissionError(`${readOnlyCause(principal)}; this request needs ${requirement.access}`);
  }
  return principal;
}

/** What holds a principal to read: the key itself, or the role or service account it acts for. */
function readOnlyCause(principal: Principal): string {
  if (principal.keyPermission === 'read') return 'This API key has read permission only';
  return principal.role !== null
    ? `This personal token acts for a user whose role ${principal.role} has read permission only`
    : 'This API key acts for a service account that has read permission only';
}
