import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { requestOrigin } from '../auth/audit/audit-origin.js';
import type { Accounts } from '../auth/create-accounts.js';
import type { AuthResult } from '../auth/credentials/credential-resolver.js';
import type { SessionCookie } from '../auth/sessions/session-cookie.js';
import { SignInThrottledError } from '../auth/sessions/sign-in-service.js';
import { AuthenticationError, PermissionError } from '../errors.js';
import { sendRateLimitHeaders } from '../http/rate-limit-headers.js';
import { formField } from './form-body.js';
import { LoginPage, type LoginPageProps } from './login-page.js';
import type { LoginCsrf } from './login-csrf.js';
import { LogoutPage } from './logout-page.js';
import type { PageRenderer } from './page-renderer.js';
import { viewerOf } from './page-viewer.js';
import { retryInWords } from './retry-in-words.js';
import { safeNextPath } from './safe-next-path.js';
import { seeOther } from './see-other.js';

export interface SignInPagesDependencies {
  accounts: Accounts;
  sessionCookie: SessionCookie;
  loginCsrf: LoginCsrf;
  renderer: PageRenderer;
  now: () => Date;
}

/** `{auth_url}/login` and `/logout`. `signedIn` resolves the page session (CSRF token from the form) into `ctx.state.auth`. */
export function signInPages(router: Router, deps: SignInPagesDependencies, signedIn: Middleware): void {
  const { accounts, sessionCookie, loginCsrf, renderer, now } = deps;
  const showLogin = (ctx: Context, status: number, props: Omit<LoginPageProps, 'csrfToken'>) =>
    renderer.send(ctx, { status, title: 'Sign in' }, <LoginPage csrfToken={loginCsrf.formToken(ctx)} {...props} />);

  router.get('/login', signedIn, (ctx) => {
    const next = safeNextPath(typeof ctx.query.next === 'string' ? ctx.query.next : undefined);
    if (viewerOf(ctx, accounts) !== undefined) return seeOther(ctx, next);
    showLogin(ctx, 200, {
      ...(next !== '/' && { next }),
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
    let token: string;
    try {
      ({ token } = await accounts.signIn.signIn(
        { email, password, ip: ctx.ip, userAgent: ctx.get('User-Agent'), currentToken: sessionCookie.read(ctx) },
        at,
      ));
    } catch (error) {
      if (error instanceof SignInThrottledError) {
        sendRateLimitHeaders(ctx, error.decision, at.getTime());
        return refuse(429, `Too many sign-in attempts. Try again in ${retryInWords(error.decision, at)}.`);
      }
      if (error instanceof AuthenticationError) return refuse(401, 'The email or password is wrong.');
      throw error;
    }
    loginCsrf.spend(ctx);
    ctx.append('Set-Cookie', sessionCookie.issue(token));
    seeOther(ctx, next);
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
