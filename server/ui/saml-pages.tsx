import type Router from '@koa/router';
import type { Context } from 'koa';
import type { SamlSignIn } from '../auth/saml/saml-sign-in.js';
import { SamlRefusedError } from '../auth/saml/saml-response-checks.js';
import { requestClient } from '../http/request-client.js';
import { proceedAfterFirstFactor, type SessionEntry } from './enter-session.js';
import { ErrorPage } from './error-page.js';
import { formField } from './form-body.js';
import type { PageRenderer } from './page-renderer.js';
import { safeNextPath } from './safe-next-path.js';
import { SamlTestResultPage } from './saml-test-result-page.js';

/** The assertion consumer service: its form is larger than any other page's. */
export const samlAcsPath = /^\/orgs\/[^/]+\/auth\/saml\/acs$/;

export interface SamlPagesDependencies extends SessionEntry {
  samlSignIn: SamlSignIn;
  renderer: PageRenderer;
  now: () => Date;
}

/**
 * `{org_url}/auth/saml/metadata`, `{org_url}/auth/saml` (to the identity provider) and `{org_url}/auth/saml/acs`
 * (its HTTP-POST answer, sent cross-site and so without any cookie of ours or CSRF token: the signed assertion and
 * the single-use request id it answers stand for them).
 */
export function samlPages(router: Router, deps: SamlPagesDependencies): void {
  const { samlSignIn, renderer, now } = deps;

  router.get('/orgs/:slug/auth/saml/metadata', (ctx) => {
    ctx.type = 'application/samlmetadata+xml';
    ctx.body = samlSignIn.metadata(ctx.params.slug!);
  });

  router.get('/orgs/:slug/auth/saml', async (ctx) => {
    ctx.redirect(await samlSignIn.start(ctx.params.slug!, safeNextPath(typeof ctx.query.next === 'string' ? ctx.query.next : undefined), now()));
  });

  router.post('/orgs/:slug/auth/saml/acs', async (ctx) => {
    let outcome;
    const at = now();
    try {
      outcome = await samlSignIn.finish(ctx.params.slug!, formField(ctx, 'SAMLResponse'), requestClient(ctx), at);
    } catch (error) {
      if (error instanceof SamlRefusedError) return refused(ctx);
      throw error;
    }
    if (outcome.kind === 'test') {
      return renderer.send(ctx, { title: 'SAML test' }, <SamlTestResultPage user={outcome.user} existing={outcome.existing} />);
    }
    proceedAfterFirstFactor(ctx, deps, outcome.outcome, outcome.next, at);
  });

  function refused(ctx: Context): void {
    const text = 'The identity provider’s answer could not be accepted. Start the sign-in again; if it keeps failing, ask your administrator.';
    renderer.send(ctx, { status: 401, title: 'Sign-in refused' }, <ErrorPage status={401} title="Sign-in refused" text={text} />);
  }
}
