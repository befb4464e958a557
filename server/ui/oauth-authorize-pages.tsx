import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { requestOrigin } from '../auth/audit/audit-origin.js';
import type { Accounts } from '../auth/create-accounts.js';
import type { AuthResult } from '../auth/credentials/credential-resolver.js';
import type { OAuth } from '../auth/oauth/create-oauth.js';
import {
  AuthorizationRedirectError,
  UntrustedRedirectError,
  type AuthorizationParameters,
  type AuthorizationRequest,
} from '../auth/oauth/oauth-authorization-service.js';
import { PermissionError } from '../errors.js';
import { ConsentPage } from './consent-page.js';
import { ErrorPage } from './error-page.js';
import { allowFormRedirectTo } from './page-security-headers.js';
import type { PageRenderer } from './page-renderer.js';
import { viewerOf, type Viewer } from './page-viewer.js';
import { seeOther } from './see-other.js';

/** The authorization request's parameters the consent form carries back. */
const requestParameters = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;

/** The error page's heading for what could not be trusted. */
const untrustedHeadings: Record<UntrustedRedirectError['fault'], string> = {
  client_id: 'Unknown application',
  redirect_uri: 'Redirect address not registered',
};

export interface OAuthAuthorizePagesDependencies {
  accounts: Accounts;
  oauth: OAuth;
  renderer: PageRenderer;
  now: () => Date;
}

/**
 * `{auth_url}/oauth/authorize`. A user who is not signed in goes through `/login` (and whatever it
 * requires) and comes back; consent given before for every scope asked is not asked again.
 */
export function oauthAuthorizePages(router: Router, deps: OAuthAuthorizePagesDependencies, signedIn: Middleware): void {
  const { accounts, oauth, renderer, now } = deps;

  router.get('/oauth/authorize', signedIn, (ctx) =>
    handleRequest(ctx, ctx.query, (request) => {
      const viewer = viewerOf(ctx, accounts);
      if (viewer === undefined) return seeOther(ctx, `/login?${new URLSearchParams({ next: ctx.url })}`);
      if (oauth.authorization.hasConsent(viewer.user.id, request)) return approve(ctx, viewer, request);
      allowFormRedirectTo(ctx, request.redirectUri);
      const parameters = Object.fromEntries(requestParameters.flatMap((name) => (typeof ctx.query[name] === 'string' ? [[name, ctx.query[name]]] : [])));
      renderer.send(
        ctx,
        { title: `Authorize ${request.client.name}`, viewer },
        <ConsentPage
          csrfToken={viewer.csrfToken}
          application={request.client.name}
          owner={request.client.organization_name}
          scopes={request.scopes}
          role={viewer.user.role}
          parameters={parameters}
        />,
      );
    }),
  );

  router.post('/oauth/authorize', signedIn, (ctx) =>
    handleRequest(ctx, ctx.request.body as AuthorizationParameters, (request) => {
      const auth = ctx.state.auth as AuthResult;
      // A form without the session's token may come from another site: it decides nothing.
      if ('error' in auth && auth.error instanceof PermissionError) throw auth.error;
      const viewer = viewerOf(ctx, accounts);
      if (viewer === undefined) return seeOther(ctx, '/login');
      if ((ctx.request.body as Record<string, unknown>).decision !== 'approve') return seeOther(ctx, oauth.authorization.deny(request));
      approve(ctx, viewer, request);
    }),
  );

  function approve(ctx: Context, viewer: Viewer, request: AuthorizationRequest): void {
    seeOther(ctx, oauth.authorization.approve(requestOrigin(ctx, viewer.principal), viewer.user.id, request, now()));
  }

  /** Validates the request: faults before the redirect URI is trusted get an error page, later ones go back to the client. */
  function handleRequest(ctx: Context, parameters: AuthorizationParameters, work: (request: AuthorizationRequest) => void): void {
    let request: AuthorizationRequest;
    try {
      request = oauth.authorization.validate(parameters);
    } catch (error) {
      if (error instanceof AuthorizationRedirectError) return seeOther(ctx, error.redirectTo);
      if (!(error instanceof UntrustedRedirectError)) throw error;
      const heading = untrustedHeadings[error.fault];
      return renderer.send(ctx, { status: 400, title: heading }, <ErrorPage status={400} title={heading} text={`${error.message}. Tell the application's developers.`} />);
    }
    work(request);
  }
}
