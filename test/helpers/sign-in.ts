import { hashPassword } from '../../server/auth/passwords/password-hash.js';
import type { Role } from '../../server/auth/permissions.js';
import type { ServerServices } from '../../server/compose-services.js';
import type { TestServer } from './test-server.js';

export const testPassword = 'plum-kettle-orbit-7';
export const firefoxUserAgent = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

let testPasswordHash: Promise<string> | undefined;

/** A user who can sign in with `testPassword` (hashed once per test process: argon2 is slow on purpose). */
export async function createPasswordUser(services: ServerServices, orgId: string, role: Role, now: Date): Promise<{ userId: string; email: string }> {
  testPasswordHash ??= hashPassword(testPassword);
  const email = `${role}-${Math.random().toString(36).slice(2)}@example.test`;
  const user = services.identity.createUser({ orgId, email, role, passwordHash: await testPasswordHash }, now);
  return { userId: user.id, email };
}

export interface SignedIn {
  sessionId: string;
  /** The cookie's value. */
  token: string;
  csrfToken: string;
  /** Request headers that carry the session: the cookie, and the CSRF token unless `csrf: false`. */
  headers: (options?: { csrf?: boolean }) => Record<string, string>;
}

/** Signs in through the sign-in service (the /login page's path) and returns the session's cookie, as a browser would hold it. */
export async function signIn(
  server: TestServer,
  email: string,
  password = testPassword,
  client: { ip?: string; userAgent?: string; cookieName?: string } = {},
): Promise<SignedIn> {
  const outcome = await server.services.accounts.signIn.signIn(
    { email, password, ip: client.ip ?? '127.0.0.1', userAgent: client.userAgent ?? firefoxUserAgent },
    server.clock.now,
  );
  if (outcome.kind !== 'signed_in') throw new Error(`${email} has a second factor: sign in with signInWithSecondFactor`);
  return signedIn(outcome, client.cookieName);
}

/** The cookie and CSRF token of a session just started, as a browser would hold them. */
export function signedIn(started: { id: string; token: string; csrfToken: string }, cookieName = 'dbmon_session'): SignedIn {
  const cookie = `${cookieName}=${started.token}`;
  return {
    sessionId: started.id,
    token: started.token,
    csrfToken: started.csrfToken,
    headers: ({ csrf = true } = {}) => ({ cookie, ...(csrf && { 'x-csrf-token': started.csrfToken }) }),
  };
}
