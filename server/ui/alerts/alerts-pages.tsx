import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Accounts } from '../../auth/create-accounts.js';
import { dashboardViewer } from '../dashboard-pages.js';
import type { PageRenderer } from '../page-renderer.js';
import type { Viewer } from '../page-viewer.js';
import { AlertsPage } from './alerts-page.js';
import { WebhooksPage } from './webhooks-page.js';

/** Whether the viewer's session may change rules and endpoints; the API refuses the others anyway. */
const mayEdit = (viewer: Viewer) => viewer.principal.access === 'write';

/** `/alerts` and `/webhooks`: frames the browser code fills from /v1 with the session cookie. */
export function alertsPages(router: Router, accounts: Accounts, renderer: PageRenderer, signedIn: Middleware, now: () => Date): void {
  router.get('/alerts', signedIn, (ctx) => {
    const viewer = dashboardViewer(ctx, accounts, now);
    if (viewer === undefined) return;
    renderer.send(ctx, { title: 'Alerts', viewer, section: 'alerts', wide: true, scripts: ['alerts-page.js'] }, <AlertsPage canEdit={mayEdit(viewer)} />);
  });

  router.get('/webhooks', signedIn, (ctx) => {
    const viewer = dashboardViewer(ctx, accounts, now);
    if (viewer === undefined) return;
    renderer.send(ctx, { title: 'Webhooks', viewer, section: 'webhooks', wide: true, scripts: ['webhooks-page.js'] }, <WebhooksPage canEdit={mayEdit(viewer)} />);
  });
}
