import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { AuthenticationError, PermissionError } from '../../errors.js';
import type { SessionCookie } from '../sessions/session-cookie.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import type { AuthResult, CredentialResolver } from './credential-resolver.js';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The browser session cookie. A browser sends it with requests other sites make too, so every
 * unsafe method must also carry the session's token in `X-CSRF-Token`, which another site cannot read.
 */
export class SessionCookieResolver implements CredentialResolver {
  constructor(
    private readonly sessions: SessionsService,
    private readonly cookie: SessionCookie,
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
    if (!safeMethods.has(ctx.method) && !sameSecret(ctx.get('X-CSRF-Token'), session.csrfToken)) {
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

/** Constant-time whatever the lengths: both sides are hashed to 32 bytes first. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return given !== '' && timingSafeEqual(digest(given), digest(expected));
}
