import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Accounts } from '../auth/create-accounts.js';
import { ThrottledError } from '../auth/throttling/throttled-error.js';
import { factorOwnerOf } from '../auth/two-factor/factor-owner.js';
import { phoneBody } from '../auth/two-factor/two-factor-schema.js';
import type { TotpEnrollment } from '../auth/two-factor/two-factor-service.js';
import { ApiError } from '../errors.js';
import { requestClient } from '../http/request-client.js';
import { formField } from './form-body.js';
import type { PageRenderer } from './page-renderer.js';
import { retryInWords } from './retry-in-words.js';
import { signedInViewer, type Viewer } from './page-viewer.js';
import { safeNextPath } from './safe-next-path.js';
import { seeOther } from './see-other.js';
import { RecoveryCodesPage, SmsVerifyPage, TotpEnrollPage, TwoFactorOverview, type TwoFactorOverviewProps } from './two-factor-setup-page.js';

const title = 'Two-factor authentication';

/**
 * `/account/two-factor`: setting up an authenticator app or a phone for text message codes, recovery
 * codes, removing a factor (password again). The same services as `/v1/user/two-factor/*`; these
 * pages stay open to a member past their organization's deadline, who is sent here from every other page.
 */
export function twoFactorPages(router: Router, accounts: Accounts, renderer: PageRenderer, signedIn: Middleware, now: () => Date): void {
  const { twoFactor, sms } = accounts;
  const viewerFor = (ctx: Context) => signedInViewer(ctx, accounts, '/account/two-factor');
  const nextOf = (ctx: Context) => safeNextPath((ctx.method === 'GET' ? (ctx.query.next as string | undefined) : formField(ctx, 'next')) || undefined);
  const overview = (ctx: Context, viewer: Viewer, status: number, props: Partial<TwoFactorOverviewProps> = {}) => {
    const at = now();
    const { user } = viewer;
    const phone = sms.phoneOf(user.id);
    const factors = {
      totp: twoFactor.confirmed(user.id, 'totp'),
      smsEnding: phone?.confirmed === true ? phone.ending : undefined,
      smsAvailable: sms.available,
      recoveryCodesLeft: twoFactor.status(user.id).recovery_codes_left,
    };
    renderer.send(
      ctx,
      { status, title, viewer, section: 'two-factor' },
      <TwoFactorOverview csrfToken={viewer.csrfToken} factors={factors} standing={accounts.twoFactorStandings.of(user.org_id, user.id, at)} now={at} next={nextOf(ctx)} {...props} />,
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
    const notice = noticeOf(ctx.query.done);
    overview(ctx, viewer, 200, notice === undefined ? {} : { notice });
  });

  router.post('/account/two-factor/totp', signedIn, async (ctx) => {
    const viewer = viewerFor(ctx);
    if (viewer === undefined) return;
    if (twoFactor.confirmed(viewer.user.id, 'totp')) return seeOther(ctx, '/account/two-factor');
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

  for (const method of ['totp', 'sms'] as const) {
    router.post(`/account/two-factor/${method}/remove`, signedIn, async (ctx) => {
      const viewer = viewerFor(ctx);
      if (viewer === undefined) return;
      try {
        await twoFactor.remove(owner(ctx, viewer), method, formField(ctx, 'password'), requestClient(ctx), now());
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 'reauthentication_required') throw error;
        return overview(ctx, viewer, 403, { error: { form: method, message: 'The password is wrong.' } });
      }
      seeOther(ctx, `/account/two-factor?done=${method}_removed`);
    });
  }

  router.post('/account/two-factor/sms', signedIn, async (ctx) => {
    const viewer = viewerFor(ctx);
    if (viewer === undefined) return;
    const typed = formField(ctx, 'phone');
    const phone = phoneBody.safeParse({ phone: typed });
    const refuse = (status: number, message: string) => overview(ctx, viewer, status, { error: { form: 'phone', message }, phone: typed });
    if (!phone.success) return refuse(400, 'Enter the number in international form: + and the country code, then the number, e.g. +14155550100.');
    const at = now();
    try {
      const sent = await sms.start(viewer.user, phone.data.phone, at);
      renderer.send(ctx, { title, viewer }, <SmsVerifyPage csrfToken={viewer.csrfToken} phoneEnding={sent.phoneEnding} next={nextOf(ctx)} />);
    } catch (error) {
      if (error instanceof ThrottledError) return refuse(429, `Too many text messages. Try again in ${retryInWords(error.decision, at)}.`);
      if (error instanceof ApiError && error.status === 503) return refuse(503, 'The text message could not be sent. Try again later.');
      throw error;
    }
  });

  router.post('/account/two-factor/sms/verify', signedIn, (ctx) => {
    const viewer = viewerFor(ctx);
    if (viewer === undefined) return;
    let recoveryCodes: string[];
    try {
      recoveryCodes = sms.confirm(owner(ctx, viewer), formField(ctx, 'code'), now());
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'invalid_code') throw error;
      const phoneEnding = sms.phoneOf(viewer.user.id)?.ending ?? '';
      const message = 'That code is not the one we sent, or it has expired. Check the code, or use another number to get a new one.';
      return renderer.send(ctx, { status: 400, title, viewer }, <SmsVerifyPage csrfToken={viewer.csrfToken} phoneEnding={phoneEnding} next={nextOf(ctx)} error={message} />);
    }
    if (recoveryCodes.length > 0) return codes(ctx, viewer, recoveryCodes);
    seeOther(ctx, '/account/two-factor?done=sms_added');
  });
}

/** What the page says after a change it redirected from (`?done=`). */
const notices = new Map([
  ['totp_removed', 'The authenticator app was removed.'],
  ['sms_removed', 'The phone was removed: no more codes by text message.'],
  ['sms_added', 'Text message codes are turned on.'],
]);

function noticeOf(done: unknown): string | undefined {
  return typeof done === 'string' ? notices.get(done) : undefined;
}
