import type { Context } from 'koa';

/**
 * The session cookie: `__Host-dbmon_session` when `server.public_url` is https (the prefix makes the
 * browser refuse it unless Secure, host-only and Path=/, so no subdomain can plant one), else
 * `dbmon_session`. HttpOnly, SameSite=Lax, Path=/; no Max-Age: it ends with the browser, and the
 * server ends it sooner by the organization's settings.
 */
export class SessionCookie {
  readonly name: string;
  readonly #attributes: string;

  constructor(publicUrl: string) {
    const secure = new URL(publicUrl).protocol === 'https:';
    this.name = secure ? '__Host-dbmon_session' : 'dbmon_session';
    this.#attributes = `Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  }

  read(ctx: Context): string | undefined {
    return ctx.cookies.get(this.name) || undefined;
  }

  /** The Set-Cookie value that gives the browser this session. */
  issue(token: string): string {
    return `${this.name}=${token}; ${this.#attributes}`;
  }

  /** The Set-Cookie value that makes the browser forget it. */
  clear(): string {
    return `${this.name}=; ${this.#attributes}; Max-Age=0`;
  }
}
