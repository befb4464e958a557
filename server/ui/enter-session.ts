import type { Context } from 'koa';
import type { Accounts } from '../auth/create-accounts.js';
import type { SessionCookie } from '../auth/sessions/session-cookie.js';
import type { SignedIn, SignInOutcome } from '../auth/sessions/sign-in-service.js';
import type { HostCookie } from '../http/host-cookie.js';
import { enrollmentPath } from './enrollment-path.js';
import type { LoginCsrf } from './login-csrf.js';
import { seeOther } from './see-other.js';

export interface SessionEntry {
  accounts: Accounts;
  sessionCookie: SessionCookie;
  /** Holds a pending sign-in's token between the first factor and the second. */
  pendingSignInCookie: HostCookie;
  loginCsrf: LoginCsrf;
}

/** A first factor passed: the browser goes on to its second factor, or into the session it started. */
export function proceedAfterFirstFactor(ctx: Context, entry: SessionEntry, outcome: SignInOutcome, next: string, at: Date): void {
  if (outcome.kind === 'second_factor') {
    ctx.append('Set-Cookie', entry.pendingSignInCookie.issue(outcome.pendingToken));
    return seeOther(ctx, next === '/' ? '/login/two-factor' : `/login/two-factor?${new URLSearchParams({ next })}`);
  }
  enterSession(ctx, entry, outcome, next, at);
}

/** A session started: the browser gets its cookie and goes on, first to set up a second factor if the organization asks for one. */
export function enterSession(ctx: Context, { accounts, sessionCookie, loginCsrf }: SessionEntry, started: SignedIn, next: string, at: Date): void {
  loginCsrf.spend(ctx);
  ctx.append('Set-Cookie', sessionCookie.issue(started.token));
  const standing = accounts.twoFactorStandings.of(started.user.org_id, started.user.id, at);
  seeOther(ctx, standing.state === 'satisfied' ? next : enrollmentPath(next));
}
