import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Accounts } from '../auth/create-accounts.js';
import { requestOrigin } from '../auth/audit/audit-origin.js';
import { roles } from '../auth/permissions.js';
import type { Saml } from '../auth/saml/create-saml.js';
import { samlSettingsBody } from '../auth/saml/saml-schema.js';
import { ApiError, PermissionError } from '../errors.js';
import { formField } from './form-body.js';
import { allowFormRedirectTo } from './page-security-headers.js';
import type { PageRenderer } from './page-renderer.js';
import { signedInViewer, type Viewer } from './page-viewer.js';
import { SamlSettingsPage } from './saml-settings-page.js';
import { seeOther } from './see-other.js';

const title = 'Single sign-on';

/** `/settings/saml`: the SAML settings of `/v1/org/saml` as a form, for owners and admins, with the test round trip. */
export function samlSettingsPages(router: Router, accounts: Accounts, saml: Saml, renderer: PageRenderer, signedIn: Middleware, now: () => Date): void {
  const administrator = (ctx: Context): Viewer | undefined => {
    const viewer = signedInViewer(ctx, accounts, '/settings/saml');
    if (viewer === undefined) return undefined;
    if (viewer.user.role !== 'owner' && viewer.user.role !== 'admin') throw new PermissionError('Only owners and admins manage single sign-on');
    return viewer;
  };
  const show = (ctx: Context, viewer: Viewer, status: number, props: { notice?: string; error?: string } = {}) => {
    const settings = saml.settings.settings(viewer.organization.id, now());
    // The test form's answer redirects to the identity provider, which the page's form-action must allow.
    if (settings.idp_sso_url !== '') allowFormRedirectTo(ctx, settings.idp_sso_url);
    renderer.send(ctx, { status, title, viewer }, <SamlSettingsPage csrfToken={viewer.csrfToken} settings={settings} {...props} />);
  };

  router.get('/settings/saml', signedIn, (ctx) => {
    const viewer = administrator(ctx);
    if (viewer !== undefined) show(ctx, viewer, 200, ctx.query.saved === '1' ? { notice: 'Saved.' } : {});
  });

  router.post('/settings/saml', signedIn, (ctx) => {
    const viewer = administrator(ctx);
    if (viewer === undefined) return;
    const parsed = samlSettingsBody.safeParse(settingsOfForm(ctx));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return show(ctx, viewer, 400, { error: `${issue.path.join('.')}: ${issue.message}` });
    }
    try {
      saml.settings.replace(requestOrigin(ctx, viewer.principal), parsed.data, now());
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) return show(ctx, viewer, error.status, { error: error.message });
      throw error;
    }
    seeOther(ctx, '/settings/saml?saved=1');
  });

  router.post('/settings/saml/test', signedIn, async (ctx) => {
    const viewer = administrator(ctx);
    if (viewer !== undefined) seeOther(ctx, await saml.signIn.startTest(requestOrigin(ctx, viewer.principal), now()));
  });
}

/** The form's fields in the shape of `PUT /v1/org/saml`'s body. */
function settingsOfForm(ctx: Context): Record<string, unknown> {
  const checked = (name: string) => formField(ctx, name) === 'on';
  const list = (name: string) =>
    formField(ctx, name)
      .split(',')
      .map((value) => value.trim())
      .filter((value) => value !== '');
  return {
    enabled: checked('enabled'),
    idp_sso_url: formField(ctx, 'idp_sso_url').trim(),
    idp_entity_id: formField(ctx, 'idp_entity_id'),
    idp_certificate: formField(ctx, 'idp_certificate'),
    attribute_mapping: { email: formField(ctx, 'attribute_email'), name: formField(ctx, 'attribute_name'), role: formField(ctx, 'attribute_role') },
    role_values: Object.fromEntries(roles.map((role) => [role, list(`role_values_${role}`)]).filter(([, values]) => values!.length > 0)),
    default_role: formField(ctx, 'default_role'),
    jit_provisioning: checked('jit_provisioning'),
    allow_idp_initiated: checked('allow_idp_initiated'),
    sso_satisfies_two_factor: checked('sso_satisfies_two_factor'),
  };
}
