import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Accounts } from '../auth/create-accounts.js';
import { requestOrigin } from '../auth/audit/audit-origin.js';
import type { Providers } from '../auth/providers/create-providers.js';
import { ConflictError } from '../errors.js';
import { AccountIdentitiesPage } from './account-identities-page.js';
import type { PageRenderer } from './page-renderer.js';
import { signedInViewer, type Viewer } from './page-viewer.js';
import { seeOther } from './see-other.js';

const path = '/account/identities';
const title = 'Linked accounts';

/** `/account/identities`: the viewer's linked provider accounts, and unlinking one; the same service as `/v1/user/identities`. */
export function accountIdentitiesPages(router: Router, accounts: Accounts, providers: Providers, renderer: PageRenderer, signedIn: Middleware, now: () => Date): void {
  const { identities } = providers;
  const viewerFor = (ctx: Context) => signedInViewer(ctx, accounts, path);
  const show = (ctx: Context, viewer: Viewer, status: number, outcome: { notice?: string; error?: string } = {}) => {
    const linked = identities.of(viewer.user.id).map((row) => ({ id: row.id, provider: row.provider, email: row.email, linkedAt: row.created_at }));
    renderer.send(ctx, { status, title, viewer, section: 'identities', wide: true }, <AccountIdentitiesPage csrfToken={viewer.csrfToken} identities={linked} {...outcome} />);
  };

  router.get(path, signedIn, (ctx) => {
    const viewer = viewerFor(ctx);
    if (viewer !== undefined) show(ctx, viewer, 200, ctx.query.done === 'unlinked' ? { notice: 'The account was unlinked.' } : {});
  });

  router.post(`${path}/:id/unlink`, signedIn, (ctx) => {
    const viewer = viewerFor(ctx);
    if (viewer === undefined) return;
    try {
      identities.unlink(requestOrigin(ctx, viewer.principal), viewer.user.id, ctx.params.id!, now());
    } catch (error) {
      if (error instanceof ConflictError && error.code === 'last_sign_in_method') {
        return show(ctx, viewer, 409, { error: 'You cannot unlink this account: it is your only way to sign in. Set a password or link another account first.' });
      }
      throw error;
    }
    seeOther(ctx, `${path}?done=unlinked`);
  });
}
