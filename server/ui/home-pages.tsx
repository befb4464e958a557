import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Accounts } from '../auth/create-accounts.js';
import { HomePage } from './home-page.js';
import type { PageRenderer } from './page-renderer.js';
import { viewerOf } from './page-viewer.js';
import { enrollmentPath } from './enrollment-path.js';
import { seeOther } from './see-other.js';

/** `/`: the signed-in start page; signed out, the way to sign in and back. */
export function homePages(router: Router, accounts: Accounts, renderer: PageRenderer, signedIn: Middleware, now: () => Date): void {
  router.get('/', signedIn, (ctx) => {
    const viewer = viewerOf(ctx, accounts);
    if (viewer === undefined) return seeOther(ctx, `/login?${new URLSearchParams({ next: ctx.url })}`);
    // Past the organization's two-factor deadline, only enrollment and signing out are open.
    if (accounts.twoFactorStandings.of(viewer.user.org_id, viewer.user.id, now()).state === 'required') return seeOther(ctx, enrollmentPath(ctx.url));
    renderer.send(ctx, { title: 'Home', viewer }, <HomePage viewer={viewer} />);
  });
}
