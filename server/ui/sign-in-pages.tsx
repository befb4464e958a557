import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { requestOrigin } from '../auth/audit/audit-origin.js';
import type { Accounts } from '../auth/create-accounts.js';
import type { AuthResult } from '../auth/credentials/credential-resolver.js';
import type { Saml } from '../auth/saml/create-saml.js';
import type { Providers } from '../auth/providers/create-providers.js';
import type { SessionCookie } from '../auth/sessions/session-cookie.js';
import { SignInThrottledError, type SignedIn, type SignInOutcome } from '../auth/sessions/sign-in-service.js';
import { ThrottledError } from '../auth/throttling/throttled-error.js';
import { secondFactorKinds } from '../auth/two-factor/two-factor-service.js';
import { ApiError, AuthenticationError, PermissionError } from '../errors.js';
import type { HostCookie } from '../http/host-cookie.js';
import { sendRateLimitHeaders } from '../http/rate-limit-headers.js';
import { enterSession, proceedAfterFirstFactor } from './enter-session.js';
import { formField } from './form-body.js';
import { LoginPage, type LoginPageProps } from './login-page.js';
import type { LoginCsrf } from './login-csrf.js';
import { LogoutPage } from './logout-page.js';
import type { PageRenderer } from './page-renderer.js';
import { viewerOf } from './page-viewer.js';
import { retryInWords } from './retry-in-words.js';
import { safeNextPath } from './safe-next-path.js';
import { seeOther } from './see-other.js';
import { TwoFactorLoginPage, type TwoFactorLoginPageProps } from './two-factor-login-page.js';

export interface SignInPagesDependencies {
  accounts: Accounts;
  /** Offers "Sign in with SSO" on `/login?org=slug` when that organization has SAML enabled. */
  saml: Saml;
  sessionCookie: SessionCookie;
  /** Holds a pending sign-in's token between the password and the second factor. */
  pendingSignInCookie: HostCookie;
  loginCsrf: LoginCsrf;
  renderer: PageRenderer;
  /** The sign-in providers of the organization a sign-in page names (`?org=`). */
  providers: Providers;
  now: () => Date;
}

/** `{auth_url}/login`, `/login/two-factor` and `/logout`. `signedIn` resolves the page session (CSRF token from the form) into `ctx.state.auth`. */
export function signInPages(router: Router, deps: SignInPagesDependencies, signedIn: Middleware): void {
  const { accounts, saml, sessionCookie, pendingSignInCookie, loginCsrf, renderer, now } = deps;
  const showLogin = (ctx: Context, status: number, props: Omit<LoginPageProps, 'csrfToken'>) =>
    renderer.send(ctx, { status, title: 'Sign in' }, <LoginPage csrfToken={loginCsrf.formToken(ctx)} {...props} />);

  router.get('/login', signedIn, (ctx) => {
    const next = safeNextPath(typeof ctx.query.next === 'string' ? ctx.query.next : undefined);
    if (viewerOf(ctx, accounts) !== undefined) return seeOther(ctx, next);
    const org = typeof ctx.query.org === 'string' ? ctx.query.org : '';
    showLogin(ctx, 200, {
      ...(next !== '/' && { next }),
      ...(saml.signIn.offersSso(org) && { ssoSlug: org }),
      providers: org === '' ? undefined : deps.providers.settings.signInChoices(org),
      ...(ctx.query.signed_out === '1' && { notice: 'You have signed out.' }),
    });
  });

  router.post('/login', async (ctx) => {
    const email = formField(ctx, 'email').trim();
    const password = formField(ctx, 'password');
    const next = safeNextPath(formField(ctx, 'next') || undefined);
    const refuse = (status: number, error: string) => showLogin(ctx, status, { email, error, ...(next !== '/' && { next }) });
    if (!loginCsrf.verify(ctx, formField(ctx, 'csrf_token'))) return refuse(403, 'This form has expired. Please sign in again.');
    if (email === '' || password === '') return refuse(400, 'Enter your email and password.');
    const at = now();
    let outcome: SignInOutcome;
    try {
      outcome = await accounts.signIn.signIn({ email, password, ip: ctx.ip, userAgent: ctx.get('User-Agent'), currentToken: sessionCookie.read(ctx) }, at);
    } catch (error) {
      if (error instanceof SignInThrottledError) return refuse(429, throttledMessage(ctx, error, at));
      if (error instanceof AuthenticationError && error.code === 'single_sign_on_required') {
        return refuse(403, 'Your organization signs in with single sign-on: use its "Sign in with SSO" link.');
      }
      if (error instanceof AuthenticationError) return refuse(401, 'The email or password is wrong.');
      throw error;
    }
    proceedAfterFirstFactor(ctx, deps, outcome, next, at);
  });

  /** The second-factor page with the ways the pending user has (none once the pending sign-in is gone). */
  const showTwoFactor = (ctx: Context, status: number, props: Omit<TwoFactorLoginPageProps, 'csrfToken' | 'offer'>) => {
    const offer = accounts.secondFactorSignIn.offer(pendingSignInCookie.read(ctx) ?? '', now()) ?? { totp: false, sms: false, recoveryCode: false };
    renderer.send(ctx, { status, title: 'Two-factor authentication' }, <TwoFactorLoginPage csrfToken={loginCsrf.formToken(ctx)} offer={offer} {...props} />);
  };

  router.get('/login/two-factor', (ctx) => {
    const next = safeNextPath(typeof ctx.query.next === 'string' ? ctx.query.next : undefined);
    if (accounts.secondFactorSignIn.offer(pendingSignInCookie.read(ctx) ?? '', now()) === undefined) return seeOther(ctx, '/login');
    showTwoFactor(ctx, 200, { ...(next !== '/' && { next }) });
  });

  router.post('/login/two-factor/sms', async (ctx) => {
    const next = safeNextPath(formField(ctx, 'next') || undefined);
    const show = (status: number, props: Partial<TwoFactorLoginPageProps>) =>
      showTwoFactor(ctx, status, { kind: 'sms', ...props, ...(next !== '/' && { next }) });
    if (!loginCsrf.verify(ctx, formField(ctx, 'csrf_token'))) return show(403, { error: 'This form has expired. Please ask for the code again.' });
    const at = now();
    try {
      const sent = await accounts.secondFactorSignIn.sendSmsCode(pendingSignInCookie.read(ctx) ?? '', at);
      show(200, { smsSentTo: sent.phoneEnding });
    } catch (error) {
      if (error instanceof AuthenticationError) {
        ctx.append('Set-Cookie', pendingSignInCookie.clear());
        return showLogin(ctx, 401, { error: 'The sign-in has expired. Please sign in again.', ...(next !== '/' && { next }) });
      }
      if (error instanceof ThrottledError) return show(429, { error: `Too many text messages. Try again in ${retryInWords(error.decision, at)}, or use another way.` });
      if (error instanceof ApiError) return show(503, { error: 'The text message could not be sent. Try again later, or use another way.' });
      throw error;
    }
  });

  router.post('/login/two-factor', async (ctx) => {
    const next = safeNextPath(formField(ctx, 'next') || undefined);
    const kind = secondFactorKinds.find((known) => known === formField(ctx, 'kind')) ?? 'totp';
    const refuse = (status: number, error: string) => showTwoFactor(ctx, status, { kind, error, ...(next !== '/' && { next }) });
    if (!loginCsrf.verify(ctx, formField(ctx, 'csrf_token'))) return refuse(403, 'This form has expired. Please enter the code again.');
    const pendingToken = pendingSignInCookie.read(ctx);
    const at = now();
    let started: SignedIn;
    try {
      started = await accounts.secondFactorSignIn.finish(
        { pendingToken: pendingToken ?? '', kind, code: formField(ctx, 'code'), ip: ctx.ip, userAgent: ctx.get('User-Agent'), currentToken: sessionCookie.read(ctx) },
        at,
      );
    } catch (error) {
      if (error instanceof SignInThrottledError) return refuse(429, throttledMessage(ctx, error, at));
      if (error instanceof AuthenticationError && error.code === 'sign_in_expired') {
        ctx.append('Set-Cookie', pendingSignInCookie.clear());
        return showLogin(ctx, 401, { error: 'The sign-in has expired. Please sign in again.', ...(next !== '/' && { next }) });
      }
      if (error instanceof AuthenticationError) return refuse(401, 'That code is wrong or was already used.');
      throw error;
    }
    ctx.append('Set-Cookie', pendingSignInCookie.clear());
    enterSession(ctx, deps, started, next, at);
  });

  router.get('/logout', signedIn, (ctx) => {
    const viewer = viewerOf(ctx, accounts);
    if (viewer === undefined) return seeOther(ctx, '/login');
    renderer.send(ctx, { title: 'Sign out', viewer }, <LogoutPage csrfToken={viewer.csrfToken} />);
  });

  router.post('/logout', signedIn, (ctx) => {
    const auth = ctx.state.auth as AuthResult;
    if ('error' in auth) {
      // A session without the form's token stays: another site may have sent this.
      if (auth.error instanceof PermissionError) throw auth.error;
      return seeOther(ctx, '/login');
    }
    accounts.sessions.signOut(requestOrigin(ctx, auth.principal), auth.principal.credential.id, now());
    ctx.append('Set-Cookie', sessionCookie.clear());
    seeOther(ctx, '/login?signed_out=1');
  });
}

/** The 429 page's words, with the contract's X-RateLimit-* headers. */
function throttledMessage(ctx: Context, error: SignInThrottledError, at: Date): string {
  sendRateLimitHeaders(ctx, error.decision, at.getTime());
  return `Too many sign-in attempts. Try again in ${retryInWords(error.decision, at)}.`;
}
