import Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import type { Logger } from 'pino';
import type { Accounts } from '../auth/create-accounts.js';
import type { CredentialResolver } from '../auth/credentials/credential-resolver.js';
import type { CsrfTokenSource } from '../auth/credentials/session-cookie-resolver.js';
import type { OAuth } from '../auth/oauth/create-oauth.js';
import type { Saml } from '../auth/saml/create-saml.js';
import type { Providers } from '../auth/providers/create-providers.js';
import type { SessionCookie } from '../auth/sessions/session-cookie.js';
import { NoRouteError } from '../errors.js';
import { authenticate } from '../http/authenticate.js';
import { HostCookie } from '../http/host-cookie.js';
import { LayerPaths } from '../http/layer-paths.js';
import { underV1 } from '../http/under-v1.js';
import { unmatched } from '../http/unmatched.js';
import { alertsPages } from './alerts/alerts-pages.js';
import { dashboardPages } from './dashboard-pages.js';
import type { DatabaseSectionsSource } from './database/database-sections-source.js';
import { formBody, formField } from './form-body.js';
import { htmlErrors, sendErrorPage } from './html-errors.js';
import { identityProviderPages } from './identity-provider-pages.js';
import { linkPagePaths, linkPages } from './link-pages.js';
import { LoginCsrf } from './login-csrf.js';
import { oauthAuthorizePages } from './oauth-authorize-pages.js';
import { setPageSecurityHeaders } from './page-security-headers.js';
import { PageRenderer } from './page-renderer.js';
import { samlAcsPath, samlPages } from './saml-pages.js';
import { samlSettingsPages } from './saml-settings-pages.js';
import { settingsPagesRoutes } from './settings/settings-pages.js';
import { providerSignInPages } from './provider-sign-in-pages.js';
import { accountIdentitiesPages } from './account-identities-pages.js';
import { signInPages } from './sign-in-pages.js';
import { StaticAssets } from './static-assets.js';
import { twoFactorPages } from './two-factor-pages.js';

export interface PagesDependencies {
  accounts: Accounts;
  /** The OAuth authorization endpoint's service, behind `/oauth/authorize`. */
  oauth: OAuth;
  /** SAML sign-in under `{org_url}/auth/saml`. */
  saml: Saml;
  /** Sign-in through the organization's GitHub, Google, Microsoft and GitLab. */
  providers: Providers;
  sessionCookie: SessionCookie;
  /** The pages' credential: the session cookie (refused outside the organization's IP allowlist), its CSRF token read by `csrfToken`. */
  credentials: (csrfToken: CsrfTokenSource) => CredentialResolver[];
  /** `server.public_url`: https makes the pages' cookies Secure and `__Host-` prefixed, and sends HSTS. */
  publicUrl: string;
  /** What the database page renders on the server: the database, its slow queries, optimizations and rules (its charts the browser reads from /v1). */
  databases: DatabaseSectionsSource;
  logger: Logger;
  now: () => Date;
}

/**
 * The browser-facing router beside `/v1`: its paths answer HTML (errors too), take form bodies and
 * know only the session cookie, with the CSRF token in a form field. Any other path goes on to the
 * API; one no route knows is a 404 page for a browser (the API's JSON for anyone else, and under /v1 always).
 */
export function pages(deps: PagesDependencies): Middleware {
  const https = new URL(deps.publicUrl).protocol === 'https:';
  const assets = new StaticAssets();
  const renderer = new PageRenderer(assets);
  const router = new Router({ sensitive: true, strict: true });
  const signedIn = authenticate(deps.credentials((ctx) => formField(ctx, 'csrf_token')), deps.now);
  for (const asset of assets.routes()) router.get(asset.path, asset.send);
  const loginCsrf = new LoginCsrf(deps.publicUrl);
  const pendingSignInCookie = new HostCookie(deps.publicUrl, 'dbmon_pending_sign_in');
  signInPages(router, { ...deps, pendingSignInCookie, loginCsrf, renderer }, signedIn);
  providerSignInPages(router, { ...deps, pendingSignInCookie, providerSignInCookie: new HostCookie(deps.publicUrl, 'dbmon_provider_sign_in'), loginCsrf, renderer });
  linkPages(router, { ...deps, pendingSignInCookie, loginCsrf, renderer });
  dashboardPages(router, deps.accounts, deps.databases, renderer, signedIn, deps.now);
  twoFactorPages(router, deps.accounts, renderer, signedIn, deps.now);
  identityProviderPages(router, deps.accounts, deps.providers, renderer, signedIn, deps.now);
  accountIdentitiesPages(router, deps.accounts, deps.providers, renderer, signedIn, deps.now);
  oauthAuthorizePages(router, { ...deps, renderer }, signedIn);
  samlPages(router, { ...deps, samlSignIn: deps.saml.signIn, pendingSignInCookie, loginCsrf, renderer });
  samlSettingsPages(router, deps.accounts, deps.saml, renderer, signedIn, deps.now);
  settingsPagesRoutes(router, deps.accounts, renderer, signedIn, deps.now);
  alertsPages(router, deps.accounts, renderer, signedIn, deps.now);
  // A path is the pages' when one of their routes matches it.
  const pagePaths = new LayerPaths(router.stack);
  const tokenPaths = new LayerPaths(router.stack.filter((layer) => (linkPagePaths as readonly string[]).includes(String(layer.path))));

  const errors = htmlErrors(renderer, deps.logger);
  const noRoute = unmatched();
  const form = formBody();
  // A SAML response carries a signed assertion with the identity provider's certificate and every attribute.
  const samlResponseForm = formBody(256 * 1024);
  const routes = router.routes() as Middleware;
  const methods = router.allowedMethods() as Middleware;
  const end: Next = async () => {};
  return (ctx: Context, next: Next) => {
    // No page path is under /v1: the API's requests go on without the page patterns tested against them.
    if (underV1(ctx.path)) return next();
    if (!pagePaths.has(ctx.path)) return browserNotFound(ctx, next);
    setPageSecurityHeaders(ctx, https);
    // The path holds a one-time token: not even this server's own stylesheet request may carry it as the Referer.
    if (tokenPaths.has(ctx.path)) ctx.set('Referrer-Policy', 'no-referrer');
    // A page request ends here: the API's middleware after this one never sees it.
    const parse = samlAcsPath.test(ctx.path) ? samlResponseForm : form;
    return errors(ctx, () => noRoute(ctx, () => parse(ctx, () => routes(ctx, () => methods(ctx, end)))));
  };

  async function browserNotFound(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof NoRouteError) || ctx.accepts('json', 'html') !== 'html') throw error;
      setPageSecurityHeaders(ctx, https);
      sendErrorPage(ctx, renderer, deps.logger, error);
    }
  }
}
