import { generateSync } from 'otplib';
import { signedIn, type SignedIn } from './sign-in.js';
import type { TestServer } from './test-server.js';

/** The code an authenticator app holding `secret` shows at `at` (plus `steps` periods of 30 s). */
export function totpCode(secret: string, at: Date, steps = 0): string {
  return generateSync({ secret, epoch: Math.floor(at.getTime() / 1000) + steps * 30 });
}

/** Sets up an authenticator app through the API with this session; returns its secret and the recovery codes. */
export async function enrollTotp(server: TestServer, session: SignedIn): Promise<{ secret: string; recoveryCodes: string[] }> {
  const started = await server.request('POST', '/v1/user/two-factor/totp', { headers: session.headers() });
  if (started.status !== 200) throw new Error(`enrollment refused: ${started.text}`);
  const secret = started.body.secret as string;
  const verified = await server.request('POST', '/v1/user/two-factor/totp/verify', { headers: session.headers(), body: { code: totpCode(secret, server.clock.now) } });
  if (verified.status !== 200) throw new Error(`enrollment not confirmed: ${verified.text}`);
  return { secret, recoveryCodes: verified.body.recovery_codes as string[] };
}

/** Password, then the second factor, through the sign-in services (the pages' path). */
export async function signInWithSecondFactor(
  server: TestServer,
  email: string,
  password: string,
  factor: { kind: 'totp' | 'recovery_code'; code: string },
  client: { ip?: string; currentToken?: string } = {},
): Promise<SignedIn> {
  const { accounts } = server.services;
  const ip = client.ip ?? '127.0.0.1';
  const outcome = await accounts.signIn.signIn({ email, password, ip, userAgent: 'test' }, server.clock.now);
  if (outcome.kind !== 'second_factor') throw new Error(`${email} has no second factor`);
  const started = await accounts.secondFactorSignIn.finish(
    { pendingToken: outcome.pendingToken, ...factor, ip, userAgent: 'test', currentToken: client.currentToken },
    server.clock.now,
  );
  return signedIn(started);
}
