import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Accounts } from '../auth/create-accounts.js';
import { DatabasePage, type DatabaseHeading } from './database-page.js';
import { enrollmentPath } from './enrollment-path.js';
import { OverviewPage } from './overview-page.js';
import type { PageRenderer } from './page-renderer.js';
import { signedInViewer, type Viewer } from './page-viewer.js';
import { seeOther } from './see-other.js';

/** What the database page reads of the databases feature: one database of the organization (NotFoundError otherwise). */
export interface DatabaseDirectory {
  get(orgId: string, id: string): DatabaseHeading;
}

/**
 * The dashboard's screens: `/` (the overview) and `/databases/{id}`. Their frame is rendered here; the
 * browser code (web/) fills them from /v1 with the session cookie. Signed out, they lead to sign-in and back.
 */
export function dashboardPages(router: Router, accounts: Accounts, databases: DatabaseDirectory, renderer: PageRenderer, signedIn: Middleware, now: () => Date): void {
  const viewerFor = (ctx: Context) => dashboardViewer(ctx, accounts, now);

  router.get('/', signedIn, (ctx) => {
    const viewer = viewerFor(ctx);
    if (viewer === undefined) return;
    renderer.send(ctx, { title: 'Overview', viewer, section: 'overview', wide: true, scripts: ['overview.js'] }, <OverviewPage />);
  });

  router.get('/databases/:id', signedIn, (ctx) => {
    const viewer = viewerFor(ctx);
    if (viewer === undefined) return;
    const database = databases.get(viewer.principal.orgId, ctx.params.id!);
    renderer.send(
      ctx,
      { title: database.name, viewer, section: 'overview', wide: true, scripts: ['database-page.js'], stylesheets: ['uplot.css'] },
      <DatabasePage database={database} />,
    );
  });
}

/**
 * The viewer of a dashboard screen; undefined when the answer is already set: signed out, to sign-in
 * and back; past the organization's two-factor deadline, to enrollment (only it and signing out are open).
 */
export function dashboardViewer(ctx: Context, accounts: Accounts, now: () => Date): Viewer | undefined {
  const viewer = signedInViewer(ctx, accounts, ctx.url);
  if (viewer === undefined) return undefined;
  if (accounts.twoFactorStandings.of(viewer.user.org_id, viewer.user.id, now()).state === 'required') {
    seeOther(ctx, enrollmentPath(ctx.url));
    return undefined;
  }
  return viewer;
}
