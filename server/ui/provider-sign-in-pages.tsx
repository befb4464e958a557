import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { Providers } from '../auth/providers/create-providers.js';
import { providerKinds, providerNames, type ProviderKind } from '../auth/providers/provider-kinds.js';
import { ProviderSignInRefusedError, type ProviderRefusal } from '../auth/providers/provider-sign-in-service.js';
import type { HostCookie } from '../http/host-cookie.js';
import { sendRateLimitHeaders } from '../http/rate-limit-headers.js';
import { requestClient } from '../http/request-client.js';
import { ThrottledError } from '../auth/throttling/throttled-error.js';
import { retryInWords } from './retry-in-words.js';
import { proceedAfterFirstFactor, type SessionEntry } from './enter-session.js';
import { ErrorPage } from './error-page.js';
import type { PageRenderer } from './page-renderer.js';
import { safeNextPath } from './safe-next-path.js';
import { seeOther } from './see-other.js';

export interface ProviderSignInPagesDependencies extends SessionEntry {
  providers: Providers;
  /** Binds a sign-in that left for a provider to the browser that comes back. */
  providerSignInCookie: HostCookie;
  renderer: PageRenderer;
  logger: Logger;
  now: () => Date;
}

const refusals: Record<ProviderRefusal, { status: number; text: (name: string) => string }> = {
  not_enabled: { status: 404, text: (name) => `This organization does not offer sign-in with ${name}.` },
  not_started: { status: 400, text: () => 'This sign-in was not started in this browser, or it took too long. Start again from the sign-in page.' },
  provider_refused: { status: 403, text: (name) => `${name} did not confirm the sign-in. Start again from the sign-in page.` },
  email_not_verified: {
    status: 403,
    text: (name) => `${name} has not verified the email address of this account, so it cannot be linked to a dbmon account. Verify it at ${name}, or sign in with your password.`,
  },
  no_account: {
    status: 403,
    text: (name) => `No account of this organization belongs to this ${name} account. Ask an administrator for an invitation to the email your ${name} account uses.`,
  },
  account_not_active: { status: 403, text: () => 'This account is not active. Ask an administrator of your organization.' },
};

/** `{org_url}/login`, `{org_url}/auth/{provider}` and its callback `{auth_url}/auth/{provider}/callback?org={slug}`: sign-in through the organization's providers. */
export function providerSignInPages(router: Router, deps: ProviderSignInPagesDependencies): void {
  const { providers, providerSignInCookie, sessionCookie, renderer, now } = deps;
  const organizationOf = (ctx: Context) => providers.settings.signInChoices(ctx.params.slug!);
  const refuse = (ctx: Context, provider: ProviderKind, reason: ProviderRefusal) => {
    const { status, text } = refusals[reason];
    renderer.send(ctx, { status, title: 'Sign-in refused' }, <ErrorPage status={status} title="Sign-in refused" text={text(providerNames[provider])} />);
  };

  router.get('/orgs/:slug/login', (ctx) => {
    const login = new URLSearchParams({ org: ctx.params.slug! });
    if (typeof ctx.query.next === 'string') login.set('next', ctx.query.next);
    seeOther(ctx, `/login?${login}`);
  });

  for (const provider of providerKinds) {
    router.get(`/orgs/:slug/auth/${provider}`, async (ctx) => {
      const organization = organizationOf(ctx);
      if (organization === undefined || !organization.providers.includes(provider)) return refuse(ctx, provider, 'not_enabled');
      const next = safeNextPath(typeof ctx.query.next === 'string' ? ctx.query.next : undefined);
      let started: { url: URL; token: string };
      const at = now();
      try {
        started = await providers.signIn.start(organization.orgId, provider, next, ctx.ip, at);
      } catch (error) {
        if (error instanceof ProviderSignInRefusedError) return refuse(ctx, provider, error.reason);
        if (error instanceof ThrottledError) {
          sendRateLimitHeaders(ctx, error.decision, at.getTime());
          const text = `Too many sign-ins were started from your network. Try again in ${retryInWords(error.decision, at)}.`;
          return renderer.send(ctx, { status: 429, title: 'Sign-in refused' }, <ErrorPage status={429} title="Sign-in refused" text={text} />);
        }
        deps.logger.warn({ err: error, provider }, 'provider sign-in could not start');
        const text = `${providerNames[provider]} could not be reached. Try again in a moment.`;
        return renderer.send(ctx, { status: 502, title: 'Sign-in failed' }, <ErrorPage status={502} title="Sign-in failed" text={text} />);
      }
      ctx.append('Set-Cookie', providerSignInCookie.issue(started.token));
      seeOther(ctx, started.url.toString());
    });

    router.get(`/auth/${provider}/callback`, async (ctx) => {
      const organization = typeof ctx.query.org === 'string' ? providers.settings.signInChoices(ctx.query.org) : undefined;
      const token = providerSignInCookie.read(ctx);
      ctx.append('Set-Cookie', providerSignInCookie.clear());
      if (organization === undefined) return refuse(ctx, provider, 'not_started');
      const at = now();
      try {
        const client = { ...requestClient(ctx), currentToken: sessionCookie.read(ctx) };
        const { outcome, next } = await providers.signIn.finish(token, organization.orgId, provider, new URLSearchParams(ctx.querystring), client, at);
        proceedAfterFirstFactor(ctx, deps, outcome, next, at);
      } catch (error) {
        if (error instanceof ProviderSignInRefusedError) return refuse(ctx, provider, error.reason);
        throw error;
      }
    });
  }
}
