import type Router from '@koa/router';
import type { Context } from 'koa';
import type { User } from '../auth/identity/user.js';
import type { LinkPurpose } from '../auth/one-time-links/link-purpose.js';
import { ThrottledError } from '../auth/throttling/throttled-error.js';
import { InvalidRequestError, NotFoundError } from '../errors.js';
import { sendRateLimitHeaders } from '../http/rate-limit-headers.js';
import { requestClient } from '../http/request-client.js';
import { formField } from './form-body.js';
import { InvitationPage } from './invitation-page.js';
import { LinkNotValidPage } from './link-not-valid-page.js';
import { PasswordResetPage } from './password-reset-page.js';
import { ResetRequestPage } from './reset-request-page.js';
import { retryInWords } from './retry-in-words.js';
import { seeOther } from './see-other.js';
import type { SignInPagesDependencies } from './sign-in-pages.js';

/** The pages whose path holds a one-time token: it must reach no log and no Referer. */
export const linkPagePaths = ['/invitations/:token', '/password-reset/:token'] as const;

const expiredForm = 'This form has expired. Please try again.';

/**
 * The one-time links' pages: `{auth_url}/invitations/{token}` (name and password, then signed in),
 * `/password-reset/{token}` (a new password; every other session ends, then signed in) and
 * `/password-reset`, where a forgotten password is asked for by email. Their forms carry the
 * sign-in form's CSRF token: no other site can make a browser accept a link of its own. A link
 * stands for the password, never for the second factor: a user who has one goes on to
 * `/login/two-factor` like any other sign-in. The sign-in pages' dependencies are theirs too.
 */
export function linkPages(router: Router, deps: SignInPagesDependencies): void {
  const { accounts, sessionCookie, pendingSignInCookie, loginCsrf, renderer, now } = deps;
  const [invitationPath, resetPath] = linkPagePaths;

  const linkNotValid = (ctx: Context, purpose: LinkPurpose) =>
    renderer.send(ctx, { status: 404, title: 'Link not valid' }, <LinkNotValidPage purpose={purpose} />);
  const showInvitation = (ctx: Context, status: number, invitee: User, name?: string, error?: string) =>
    renderer.send(
      ctx,
      { status, title: 'Accept the invitation' },
      <InvitationPage
        csrfToken={loginCsrf.formToken(ctx)}
        email={invitee.email}
        organization={accounts.organizationSettings.organization(invitee.org_id).name}
        name={name}
        error={error}
      />,
    );
  const showReset = (ctx: Context, status: number, account: User, error?: string) =>
    renderer.send(ctx, { status, title: 'New password' }, <PasswordResetPage csrfToken={loginCsrf.formToken(ctx)} email={account.email} error={error} />);
  const showRequest = (ctx: Context, status: number, props: { requested?: boolean; error?: string } = {}) =>
    renderer.send(ctx, { status, title: 'Reset your password' }, <ResetRequestPage csrfToken={loginCsrf.formToken(ctx)} {...props} />);

  /** The link was used: the browser is signed in as its holder with a new session, once their second factor (if any) passes. */
  const signInAndGo = (ctx: Context, user: User, via: LinkPurpose, at: Date) => {
    const outcome = accounts.signIn.signInThroughLink(user, { ...requestClient(ctx), currentToken: sessionCookie.read(ctx) }, via, at);
    loginCsrf.spend(ctx);
    if (outcome.kind === 'second_factor') {
      ctx.append('Set-Cookie', pendingSignInCookie.issue(outcome.pendingToken));
      return seeOther(ctx, '/login/two-factor');
    }
    ctx.append('Set-Cookie', sessionCookie.issue(outcome.token));
    seeOther(ctx, '/');
  };

  /** Runs a link's use; a link that stopped working meanwhile shows the link's error page, a password the policy refuses the form again. */
  const useLink = async (ctx: Context, purpose: LinkPurpose, use: () => Promise<User>, refuse: (error: string) => void) => {
    let user: User;
    try {
      user = await use();
    } catch (error) {
      if (error instanceof NotFoundError) return linkNotValid(ctx, purpose);
      if (error instanceof InvalidRequestError) return refuse(`${error.message}.`);
      throw error;
    }
    signInAndGo(ctx, user, purpose, now());
  };

  router.get(invitationPath, (ctx) => {
    const invitee = accounts.invitations.invitee(ctx.params.token!, now());
    if (invitee === undefined) return linkNotValid(ctx, 'invitation');
    showInvitation(ctx, 200, invitee);
  });

  router.post(invitationPath, async (ctx) => {
    const token = ctx.params.token!;
    const at = now();
    const invitee = accounts.invitations.invitee(token, at);
    if (invitee === undefined) return linkNotValid(ctx, 'invitation');
    const name = formField(ctx, 'name').trim();
    const refuse = (status: number, error: string) => showInvitation(ctx, status, invitee, name, error);
    if (!loginCsrf.verify(ctx, formField(ctx, 'csrf_token'))) return refuse(403, expiredForm);
    if (name === '' || name.length > 200) return refuse(400, 'Enter your name (at most 200 characters).');
    const password = formField(ctx, 'password');
    await useLink(ctx, 'invitation', () => accounts.invitations.accept(token, { name, password }, at, requestClient(ctx)), (error) => refuse(400, error));
  });

  router.get('/password-reset', (ctx) => showRequest(ctx, 200));

  router.post('/password-reset', (ctx) => {
    const email = formField(ctx, 'email').trim();
    if (!loginCsrf.verify(ctx, formField(ctx, 'csrf_token'))) return showRequest(ctx, 403, { error: expiredForm });
    if (email === '') return showRequest(ctx, 400, { error: 'Enter your email.' });
    const at = now();
    try {
      accounts.passwordResets.request(email, ctx.ip, at);
    } catch (error) {
      if (!(error instanceof ThrottledError)) throw error;
      sendRateLimitHeaders(ctx, error.decision, at.getTime());
      return showRequest(ctx, 429, { error: `Too many requests from your network. Try again in ${retryInWords(error.decision, at)}.` });
    }
    showRequest(ctx, 200, { requested: true });
  });

  router.get(resetPath, (ctx) => {
    const account = accounts.passwordResets.account(ctx.params.token!, now());
    if (account === undefined) return linkNotValid(ctx, 'password_reset');
    showReset(ctx, 200, account);
  });

  router.post(resetPath, async (ctx) => {
    const token = ctx.params.token!;
    const at = now();
    const account = accounts.passwordResets.account(token, at);
    if (account === undefined) return linkNotValid(ctx, 'password_reset');
    const refuse = (status: number, error: string) => showReset(ctx, status, account, error);
    if (!loginCsrf.verify(ctx, formField(ctx, 'csrf_token'))) return refuse(403, expiredForm);
    const password = formField(ctx, 'password');
    await useLink(ctx, 'password_reset', () => accounts.passwordResets.reset(token, password, at, requestClient(ctx)), (error) => refuse(400, error));
  });
}
