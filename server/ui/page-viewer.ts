import type { Context } from 'koa';
import type { Accounts } from '../auth/create-accounts.js';
import type { AuthResult } from '../auth/credentials/credential-resolver.js';
import type { Organization } from '../auth/identity/organization.js';
import type { User } from '../auth/identity/user.js';
import type { Principal } from '../auth/principal.js';
import { PermissionError } from '../errors.js';
import { seeOther } from './see-other.js';

/** The signed-in person a page is shown to. */
export interface Viewer {
  principal: Principal;
  user: User;
  organization: Organization;
  /** The session's CSRF token: in `<meta name="csrf-token">` and every form. */
  csrfToken: string;
}

/** The viewer of a request the page session resolver has seen; undefined when signed out (or the session ended). */
export function viewerOf(ctx: Context, accounts: Accounts): Viewer | undefined {
  const auth = ctx.state.auth as AuthResult | undefined;
  if (auth === undefined || !('principal' in auth) || auth.principal.actor.kind !== 'user') return undefined;
  const { principal } = auth;
  return {
    principal,
    user: accounts.profile.get(principal.orgId, auth.principal.actor.userId),
    organization: accounts.organizationSettings.organization(principal.orgId),
    csrfToken: accounts.sessions.csrfToken(principal.credential.id)!,
  };
}

/**
 * The viewer of a signed-in page or its form: a form post without the session's CSRF token is refused;
 * signed out, the browser goes to /login, to come back to `returnTo`, and there is no viewer.
 */
export function signedInViewer(ctx: Context, accounts: Accounts, returnTo: string): Viewer | undefined {
  const auth = ctx.state.auth as AuthResult;
  if ('error' in auth && auth.error instanceof PermissionError) throw auth.error;
  const viewer = viewerOf(ctx, accounts);
  if (viewer === undefined) seeOther(ctx, `/login?${new URLSearchParams({ next: returnTo })}`);
  return viewer;
}
