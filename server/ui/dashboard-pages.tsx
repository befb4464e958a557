import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Accounts } from '../auth/create-accounts.js';
import { DatabasePage } from './database-page.js';
import { canWrite, DatabaseSections } from './database/database-sections.js';
import type { DatabaseSectionsSource } from './database/database-sections-source.js';
import { pickedRange, pickedSort } from './database/page-query.js';
import { QueryPage } from './database/query-page.js';
import { enrollmentPath } from './enrollment-path.js';
import { OverviewPage } from './overview-page.js';
import type { PageRenderer } from './page-renderer.js';
import { signedInViewer, type Viewer } from './page-viewer.js';
import { seeOther } from './see-other.js';
import { NotFoundError } from '../errors.js';

/** The slices of a statement's history on its page. */
const queryHistorySlices = 24;

/**
 * The dashboard's screens: `/` (the overview), `/databases/{id}` and its statements' pages. Their frame is rendered here; the
 * browser code (web/) fills them from /v1 with the session cookie. Signed out, they lead to sign-in and back.
 */
export function dashboardPages(router: Router, accounts: Accounts, databases: DatabaseSectionsSource, renderer: PageRenderer, signedIn: Middleware, now: () => Date): void {
  const viewerFor = (ctx: Context) => dashboardViewer(ctx, accounts, now);

  router.get('/', signedIn, (ctx) => {
    const viewer = viewerFor(ctx);
    if (viewer === undefined) return;
    renderer.send(ctx, { title: 'Overview', viewer, section: 'overview', wide: true, scripts: ['overview.js'] }, <OverviewPage />);
  });

  router.get('/databases/:id', signedIn, (ctx) => {
    const viewer = viewerFor(ctx);
    if (viewer === undefined) return;
    const database = databases.database(viewer.principal.orgId, ctx.params.id!);
    renderer.send(
      ctx,
      { title: database.name, viewer, section: 'overview', wide: true, scripts: ['database-page.js'], stylesheets: ['uplot.css'] },
      <DatabasePage database={database}>
        <DatabaseSections source={databases} viewer={viewer} database={database} range={pickedRange(ctx.query.queries_range)} sort={pickedSort(ctx.query.queries_sort)} now={now()} />
      </DatabasePage>,
    );
  });

  router.get('/databases/:id/queries/:queryId', signedIn, (ctx) => {
    const viewer = viewerFor(ctx);
    if (viewer === undefined) return;
    const orgId = viewer.principal.orgId;
    const database = databases.database(orgId, ctx.params.id!);
    const range = pickedRange(ctx.query.range);
    const statement = databases.slowQuery(orgId, database.id, ctx.params.queryId!, range, queryHistorySlices, now());
    if (statement === undefined) throw new NotFoundError(`No statement ${ctx.params.queryId} on this database`, 'query_id');
    renderer.send(
      ctx,
      { title: `Slow query · ${database.name}`, viewer, section: 'overview', wide: true, scripts: ['database-sections.js'] },
      <QueryPage database={database} queryId={ctx.params.queryId!} {...statement} range={range.text} canWrite={canWrite(viewer)} />,
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
