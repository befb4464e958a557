import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Accounts } from '../auth/create-accounts.js';
import type { AuthResult } from '../auth/credentials/credential-resolver.js';
import { factorOwnerOf } from '../auth/two-factor/factor-owner.js';
import type { TotpEnrollment } from '../auth/two-factor/two-factor-service.js';
import { ApiError, PermissionError } from '../errors.js';
import { requestClient } from '../http/request-client.js';
import { formField } from './form-body.js';
import type { PageRenderer } from './page-renderer.js';
import { viewerOf, type Viewer } from './page-viewer.js';
import { safeNextPath } from './safe-next-path.js';
import { seeOther } from './see-other.js';
import { RecoveryCodesPage, TotpEnrollPage, TwoFactorOverview, type TwoFactorOverviewProps } from './two-factor-setup-page.js';

const title = 'Two-factor authentication';

/**
 * `/account/two-factor`: setting up an authenticator app, recovery codes, removing it (password
 * again). The same service as `/v1/user/two-factor/*`; these pages stay open to a member past their
 * organization's deadline, who is sent here from every other page.
 */
export function twoFactorPages(router: Router, accounts: Accounts, renderer: PageRenderer, signedIn: Middleware, now: () => Date): void {
  const { twoFactor } = accounts;
  /** The signed-in viewer; a form post without the session's CSRF token is refused, signed out goes to /login. */
  const viewerFor = (ctx: Context): Viewer | undefined => {
    const auth = ctx.state.auth as AuthResult;
    if ('error' in auth && auth.error instanceof PermissionError) throw auth.error;
    const viewer = viewerOf(ctx, accounts);
    if (viewer === undefined) seeOther(ctx, `/login?${new URLSearchParams({ next: '/account/two-factor' })}`);
    return viewer;
  };
  const nextOf = (ctx: Context) => safeNextPath((ctx.method === 'GET' ? (ctx.query.next as string | undefined) : formField(ctx, 'next')) || undefined);
  const overview = (ctx: Context, viewer: Viewer, status: number, props: Partial<TwoFactorOverviewProps> = {}) => {
    const at = now();
    const { user } = viewer;
    const next = nextOf(ctx);
    renderer.send(
      ctx,
      { status, title, viewer, section: 'two-factor' },
      <TwoFactorOverview
        csrfToken={viewer.csrfToken}
        enabled={user.two_factor_enabled === 1}
        recoveryCodesLeft={twoFactor.status(user.id).recovery_codes_left}
        standing={accounts.twoFactorStandings.of(user.org_id, user.id, at)}
        now={at}
        next={next}
        {...props}
      />,
    );
  };
  const enroll = (ctx: Context, viewer: Viewer, enrollment: TotpEnrollment, status: number, error?: string) =>
    renderer.send(ctx, { status, title, viewer }, <TotpEnrollPage csrfToken={viewer.csrfToken} enrollment={enrollment} next={nextOf(ctx)} error={error} />);
  const codes = (ctx: Context, viewer: Viewer, recoveryCodes: string[]) =>
    renderer.send(ctx, { title: 'Recovery codes', viewer }, <RecoveryCodesPage codes={recoveryCodes} nonce={ctx.state.cspNonce as string} next={nextOf(ctx)} />);
  const owner = (ctx: Context, viewer: Viewer) => factorOwnerOf(viewer.principal, viewer.user, requestClient(ctx));

  router.get('/account/two-factor', signedIn, (ctx) => {
    const viewer = viewerFor(ctx);
    if (viewer === undefined) return;
    overview(ctx, viewer, 200, ctx.query.removed === '1' ? { notice: 'The authenticator app was removed.' } : {});
  });

  router.post('/account/two-factor/totp', signedIn, async (ctx) => {
    const viewer = viewerFor(ctx);
    if (viewer === undefined) return;
    if (viewer.user.two_factor_enabled === 1) return seeOther(ctx, '/account/two-factor');
    enroll(ctx, viewer, await twoFactor.startTotp(viewer.user, now()), 200);
  });

  router.post('/account/two-factor/totp/verify', signedIn, async (ctx) => {
    const viewer = viewerFor(ctx);
    if (viewer === undefined) return;
    try {
      codes(ctx, viewer, twoFactor.confirmTotp(owner(ctx, viewer), formField(ctx, 'code').replace(/\s/g, ''), now()));
    } catch (error) {
      const pending = await twoFactor.pendingTotp(viewer.user);
      if (!(error instanceof ApiError) || pending === undefined) throw error;
      enroll(ctx, viewer, pending, 400, 'That code is not the one the app shows now. Check the code and try again.');
    }
  });

  router.post('/account/two-factor/recovery-codes', signedIn, (ctx) => {
    const viewer = viewerFor(ctx);
    if (viewer === undefined) return;
    codes(ctx, viewer, twoFactor.newRecoveryCodes(owner(ctx, viewer), now()));
  });

  router.post('/account/two-factor/remove', signedIn, async (ctx) => {
    const viewer = viewerFor(ctx);
    if (viewer === undefined) return;
    try {
      await twoFactor.remove(owner(ctx, viewer), 'totp', formField(ctx, 'password'), requestClient(ctx), now());
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'reauthentication_required') throw error;
      return overview(ctx, viewer, 403, { error: 'The password is wrong.' });
    }
    seeOther(ctx, '/account/two-factor?removed=1');
  });
}
