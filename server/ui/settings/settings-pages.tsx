import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { ComponentChildren } from 'preact';
import type { Accounts } from '../../auth/create-accounts.js';
import { isAdminRole } from '../../auth/permissions.js';
import { PermissionError } from '../../errors.js';
import { dashboardViewer } from '../dashboard-pages.js';
import type { PageRenderer } from '../page-renderer.js';
import type { Viewer } from '../page-viewer.js';
import type { AssetName } from '../static-assets.js';
import { seeOther } from '../see-other.js';
import { ApiKeysPage } from './api-keys-page.js';
import { AuditLogPage } from './audit-log-page.js';
import { AuthorizedApplicationsPage, OAuthApplicationsPage } from './oauth-applications-page.js';
import { ProfilePage } from './profile-page.js';
import { SecurityPage } from './security-page.js';
import { SessionsPage } from './sessions-page.js';
import { settingsPages, SettingsFrame, type SettingsPath } from './settings-frame.js';
import { UsersPage } from './users-page.js';

type SettingsContent = (viewer: Viewer) => ComponentChildren;

const contents: Record<SettingsPath, { script: AssetName; content: SettingsContent }> = {
  '/settings/api-keys': { script: 'settings-api-keys.js', content: () => <ApiKeysPage /> },
  '/settings/sessions': { script: 'settings-sessions.js', content: () => <SessionsPage /> },
  '/settings/profile': { script: 'settings-profile.js', content: (viewer) => <ProfilePage user={viewer.user} /> },
  '/settings/users': { script: 'settings-users.js', content: (viewer) => <UsersPage viewerRole={viewer.user.role} /> },
  '/settings/security': { script: 'settings-security.js', content: () => <SecurityPage /> },
  '/settings/audit-log': { script: 'settings-audit-log.js', content: () => <AuditLogPage /> },
  '/settings/oauth-applications': { script: 'settings-oauth-applications.js', content: () => <OAuthApplicationsPage /> },
  '/settings/authorized-applications': { script: 'settings-authorized-applications.js', content: () => <AuthorizedApplicationsPage /> },
};

/**
 * The settings screens under `/settings/`: frames the browser code fills from /v1 with the session
 * cookie. An administration page is refused (403) to members and viewers, whatever the API would say.
 */
export function settingsPagesRoutes(router: Router, accounts: Accounts, renderer: PageRenderer, signedIn: Middleware, now: () => Date): void {
  router.get('/settings', signedIn, (ctx) => {
    if (dashboardViewer(ctx, accounts, now) !== undefined) seeOther(ctx, settingsPages[0].path);
  });
  for (const page of settingsPages) {
    const { script, content } = contents[page.path];
    router.get(page.path, signedIn, (ctx: Context) => {
      const viewer = dashboardViewer(ctx, accounts, now);
      if (viewer === undefined) return;
      if (page.administration && !isAdminRole(viewer.user.role)) throw new PermissionError(`Only owners and admins see ${page.label}`);
      renderer.send(
        ctx,
        { title: page.label, viewer, section: 'settings', wide: true, scripts: [script] },
        <SettingsFrame role={viewer.user.role} current={page.path} title={page.label}>
          {content(viewer)}
        </SettingsFrame>,
      );
    });
  }
}
