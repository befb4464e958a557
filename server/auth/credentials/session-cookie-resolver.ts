import type { Context } from 'koa';
import { sameSecret } from '../../crypto/same-secret.js';
import { AuthenticationError, PermissionError } from '../../errors.js';
import type { SessionCookie } from '../sessions/session-cookie.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import type { AuthResult, CredentialResolver } from './credential-resolver.js';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Where a request presents the session's CSRF token. */
export type CsrfTokenSource = (ctx: Context) => string;

/** The API's place: the `X-CSRF-Token` header. */
export const csrfHeader: CsrfTokenSource = (ctx) => ctx.get('X-CSRF-Token');

/**
 * The browser session cookie. A browser sends it with requests other sites make too, so every
 * unsafe method must also carry the session's token (in `X-CSRF-Token` for the API, in a form
 * field for the pages), which another site cannot read.
 */
export class SessionCookieResolver implements CredentialResolver {
  constructor(
    private readonly sessions: SessionsService,
    private readonly cookie: SessionCookie,
    private readonly presentedCsrfToken: CsrfTokenSource = csrfHeader,
  ) {}

  resolve(ctx: Context, now: Date): AuthResult | undefined {
    const token = this.cookie.read(ctx);
    if (token === undefined) return undefined;
    let session;
    try {
      session = this.sessions.authenticate(token, now);
    } catch (error) {
      if (!(error instanceof AuthenticationError)) throw error;
      ctx.append('Set-Cookie', this.cookie.clear());
      return { error };
    }
    if (!safeMethods.has(ctx.method) && !sameSecret(this.presentedCsrfToken(ctx), session.csrfToken)) {
      return {
        error: new PermissionError(
          'A session request that changes anything needs the X-CSRF-Token header with the csrf_token of GET /v1/user',
          'csrf_token_invalid',
        ),
      };
    }
    if (session.renewedToken !== undefined) ctx.append('Set-Cookie', this.cookie.issue(session.renewedToken));
    return { principal: session.principal };
  }
}
