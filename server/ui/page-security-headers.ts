import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';

/**
 * Everything a page may load comes from this server; scripts run only with this response's nonce
 * (`ctx.state.cspNonce`, for a `<script nonce>`): no 'strict-dynamic', so a script element made
 * without the nonce never runs, whoever made it. No page may be framed, and forms post only here,
 * their answers redirecting only here or to `formTargets` (Chromium holds a form's redirects to form-action too).
 */
function contentSecurityPolicy(nonce: string, formTargets: readonly string[] = []): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    ["form-action 'self'", ...formTargets].join(' '),
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join('; ');
}

/**
 * The headers of every browser-facing response: a strict CSP with a fresh nonce, no framing, no
 * MIME sniffing, no referrer to other sites, no caching of pages (they show the signed-in user),
 * and HSTS when `server.public_url` is https.
 */
export function setPageSecurityHeaders(ctx: Context, https: boolean): void {
  const nonce = randomBytes(16).toString('base64');
  ctx.state.cspNonce = nonce;
  ctx.set({
    'Content-Security-Policy': contentSecurityPolicy(nonce),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
    'Cache-Control': 'no-store',
  });
  if (https) ctx.set('Strict-Transport-Security', 'max-age=31536000');
}

/**
 * Lets the forms of this page lead to `url`'s origin: the OAuth consent form's answer redirects the
 * browser to the application's (registered, exactly matched) redirect URI.
 */
export function allowFormRedirectTo(ctx: Context, url: string): void {
  ctx.set('Content-Security-Policy', contentSecurityPolicy(ctx.state.cspNonce as string, [new URL(url).origin]));
}
