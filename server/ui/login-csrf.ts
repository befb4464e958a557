import { createHmac, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { sameSecret } from '../crypto/same-secret.js';
import { HostCookie } from '../http/host-cookie.js';

const secretPattern = /^[A-Za-z0-9_-]{43}$/;

/**
 * CSRF protection of the sign-in form, before there is a session: a signed double-submit token.
 * The browser holds a random secret in an HttpOnly cookie; the form carries an HMAC of it under a
 * key only this process knows. A post counts only when the two agree, so another site can neither
 * read the form's token nor make one for a cookie it planted. The key is made when the server
 * starts: a form loaded before a restart is refused once and shown again with a fresh token.
 */
export class LoginCsrf {
  readonly #cookie: HostCookie;

  constructor(
    publicUrl: string,
    private readonly key: Buffer = randomBytes(32),
  ) {
    this.#cookie = new HostCookie(publicUrl, 'dbmon_login_csrf');
  }

  /** The token for this browser's form; gives the browser a secret first when it has none. */
  formToken(ctx: Context): string {
    let secret = this.#secret(ctx);
    if (secret === undefined) {
      secret = randomBytes(32).toString('base64url');
      ctx.append('Set-Cookie', this.#cookie.issue(secret));
    }
    return this.#sign(secret);
  }

  verify(ctx: Context, presented: string): boolean {
    const secret = this.#secret(ctx);
    return secret !== undefined && sameSecret(presented, this.#sign(secret));
  }

  /** Signed in: the browser forgets the secret. */
  spend(ctx: Context): void {
    ctx.append('Set-Cookie', this.#cookie.clear());
  }

  #secret(ctx: Context): string | undefined {
    const secret = this.#cookie.read(ctx);
    return secret !== undefined && secretPattern.test(secret) ? secret : undefined;
  }

  #sign(secret: string): string {
    return createHmac('sha256', this.key).update(secret).digest('base64url');
  }
}
