import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Accounts } from '../auth/create-accounts.js';
import { requestOrigin } from '../auth/audit/audit-origin.js';
import type { Providers } from '../auth/providers/create-providers.js';
import { providerSettingsBody } from '../auth/providers/identity-providers-schema.js';
import { providerKinds, providerNames } from '../auth/providers/provider-kinds.js';
import { InvalidRequestError, PermissionError } from '../errors.js';
import { parseInput } from '../http/validate.js';
import { formField } from './form-body.js';
import { IdentityProvidersPage, type IdentityProvidersPageProps } from './identity-providers-page.js';
import type { PageRenderer } from './page-renderer.js';
import { signedInViewer, type Viewer } from './page-viewer.js';

const path = '/settings/sign-in-providers';

/** `/settings/sign-in-providers` (owners and admins): the same service as `/v1/org/identity-providers`. */
export function identityProviderPages(router: Router, accounts: Accounts, providers: Providers, renderer: PageRenderer, signedIn: Middleware, now: () => Date): void {
  const { settings } = providers;
  /** An owner or admin; a form post without the session's CSRF token, or anyone else, is refused; signed out goes to /login. */
  const adminFor = (ctx: Context): Viewer | undefined => {
    const viewer = signedInViewer(ctx, accounts, path);
    if (viewer === undefined) return undefined;
    if (viewer.user.role !== 'owner' && viewer.user.role !== 'admin') throw new PermissionError('Only owners and admins set up sign-in providers');
    return viewer;
  };
  const show = (ctx: Context, viewer: Viewer, status: number, outcome?: IdentityProvidersPageProps['outcome']) => {
    const saved = settings.list(viewer.principal.orgId);
    const panels = providerKinds.map((provider) => {
      const row = saved.find((candidate) => candidate.provider === provider);
      return {
        provider,
        saved: row && { client_id: row.client_id, base_url: row.base_url, tenant: row.tenant, enabled: row.enabled === 1 },
        callbackUrl: settings.callbackUrl(viewer.principal.orgId, provider),
      };
    });
    renderer.send(ctx, { status, title: 'Sign-in providers', viewer }, <IdentityProvidersPage csrfToken={viewer.csrfToken} panels={panels} outcome={outcome} />);
  };

  router.get(path, signedIn, (ctx) => {
    const viewer = adminFor(ctx);
    if (viewer !== undefined) show(ctx, viewer, 200);
  });

  for (const provider of providerKinds) {
    const name = providerNames[provider];
    router.post(`${path}/${provider}`, signedIn, (ctx) => {
      const viewer = adminFor(ctx);
      if (viewer === undefined) return;
      const optional = (field: string) => formField(ctx, field).trim() || undefined;
      try {
        const input = parseInput(providerSettingsBody, {
          client_id: formField(ctx, 'client_id'),
          client_secret: formField(ctx, 'client_secret') || undefined,
          enabled: formField(ctx, 'enabled') === 'on',
          ...(provider === 'gitlab' && { base_url: optional('base_url') }),
          ...(provider === 'microsoft' && { tenant: optional('tenant') }),
        });
        settings.save(requestOrigin(ctx, viewer.principal), provider, input, now());
      } catch (error) {
        if (error instanceof InvalidRequestError) return show(ctx, viewer, 400, { provider, error: `${name} was not saved. ${error.message}.` });
        throw error;
      }
      show(ctx, viewer, 200, { provider, notice: `${name} was saved.` });
    });

    router.post(`${path}/${provider}/test`, signedIn, async (ctx) => {
      const viewer = adminFor(ctx);
      if (viewer !== undefined) show(ctx, viewer, 200, { provider, check: await settings.test(viewer.principal.orgId, provider) });
    });

    router.post(`${path}/${provider}/remove`, signedIn, (ctx) => {
      const viewer = adminFor(ctx);
      if (viewer === undefined) return;
      settings.delete(requestOrigin(ctx, viewer.principal), provider, now());
      show(ctx, viewer, 200, { provider, notice: `${name} was removed.` });
    });
  }
}
