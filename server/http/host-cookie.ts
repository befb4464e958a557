import type { Context } from 'koa';

/**
 * A cookie of this server: `__Host-<name>` when `server.public_url` is https (the prefix makes the
 * browser refuse it unless Secure, host-only and Path=/, so no subdomain can plant one), else
 * `<name>`. HttpOnly, SameSite=Lax, Path=/; no Max-Age: it ends with the browser.
 */
export class HostCookie {
  readonly name: string;
  readonly #attributes: string;

  constructor(publicUrl: string, baseName: string) {
    const secure = new URL(publicUrl).protocol === 'https:';
    this.name = secure ? `__Host-${baseName}` : baseName;
    this.#attributes = `Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  }

  read(ctx: Context): string | undefined {
    return ctx.cookies.get(this.name) || undefined;
  }

  /** The Set-Cookie value that gives the browser this value. */
  issue(value: string): string {
    return `${this.name}=${value}; ${this.#attributes}`;
  }

  /** The Set-Cookie value that makes the browser forget it. */
  clear(): string {
    return `${this.name}=; ${this.#attributes}; Max-Age=0`;
  }
}
