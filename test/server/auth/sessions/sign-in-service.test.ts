import t from 'tap';
import { operatorOrigin } from '../../../../server/auth/audit/audit-origin.js';
import { AuthenticationError } from '../../../../server/errors.js';
import { SignInThrottledError } from '../../../../server/auth/sessions/sign-in-service.js';
import { createTenant, startTestServer } from '../../../helpers/test-server.js';
import { createPasswordUser, testPassword } from '../../../helpers/sign-in.js';

/** What a refused sign-in throws, for comparing two refusals field by field. */
async function refusal(attempt: Promise<unknown>): Promise<Error> {
  try {
    await attempt;
  } catch (error) {
    return error as Error;
  }
  throw new Error('the sign-in was not refused');
}

t.test('the sign-in service', async (t) => {
  const server = await startTestServer();
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now);
  const { signIn } = server.services.accounts;
  const at = (ip: string, email: string, password: string) => signIn.signIn({ email, password, ip, userAgent: 'test' }, server.clock.now);

  await t.test('one answer for a wrong password and an unknown email, with no hint which', async (t) => {
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const wrongPassword = await refusal(at('198.51.100.1', email, 'not-the-password-at-all'));
    const unknownEmail = await refusal(at('198.51.100.1', 'nobody-here@example.test', 'not-the-password-at-all'));
    t.type(wrongPassword, AuthenticationError);
    t.same((wrongPassword as AuthenticationError).toBody(), (unknownEmail as AuthenticationError).toBody(), 'the same status, code and message');
    t.equal((unknownEmail as AuthenticationError).code, 'invalid_credentials');
    const { userId } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const disabledEmail = server.services.identity.listUsers(tenant.orgId).find((user) => user.id === userId)!.email;
    server.services.accounts.users.disable(operatorOrigin(tenant.orgId), userId, server.clock.now);
    const disabled = await refusal(at('198.51.100.1', disabledEmail, testPassword));
    t.same((disabled as AuthenticationError).toBody(), (unknownEmail as AuthenticationError).toBody(), 'a disabled account with the right password says the same');
  });

  await t.test('an unknown email costs a password verification too', async (t) => {
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    await refusal(at('198.51.100.2', 'warm-up@example.test', 'x'.repeat(12)));
    let attempt = 0;
    const time = async (target: string) => {
      const started = process.hrtime.bigint();
      // Each from an address of its own: ten failures from one address would be throttled, and fast.
      await refusal(at(`203.0.113.${++attempt}`, target, 'wrong-password-123'));
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    // The fastest of five each, taken in turns: on a shared machine one slow moment is no property of the code.
    const known: number[] = [];
    const unknownTimes: number[] = [];
    for (let round = 0; round < 5; round++) {
      known.push(await time(email));
      unknownTimes.push(await time('ghost@example.test'));
    }
    const [fastestKnown, unknown] = [Math.min(...known), Math.min(...unknownTimes)];
    t.ok(unknown > fastestKnown / 3, `an unknown email (${unknown.toFixed(1)} ms) takes about as long as a wrong password (${fastestKnown.toFixed(1)} ms)`);
  });

  await t.test('signing in records the time and returns a session', async (t) => {
    const { userId, email } = await createPasswordUser(server.services, tenant.orgId, 'viewer', server.clock.now);
    const started = await at('198.51.100.3', email.toUpperCase(), testPassword);
    t.equal(started.kind === 'signed_in' && started.user.id, userId, 'the email is matched case-blind');
    t.equal(server.services.accounts.profile.get(tenant.orgId, userId).last_sign_in_at, server.clock.now.toISOString());
  });

  await t.test('10 failures per account in 15 minutes, from any address, then 429 even for the right password', async (t) => {
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    for (let attempt = 0; attempt < 10; attempt++) {
      const error = await refusal(at(`192.0.2.${attempt + 10}`, email, `wrong-password-${attempt}`));
      t.equal((error as AuthenticationError).status, 401);
    }
    const throttled = await refusal(at('192.0.2.99', email, testPassword));
    t.type(throttled, SignInThrottledError);
    const body = (throttled as SignInThrottledError).toBody();
    t.equal(body.error.type, 'rate_limit_exceeded');
    t.equal(body.error.code, 'rate_limited');
    t.equal(body.error.retry_after, Math.ceil(server.clock.now.getTime() / 1000) + 900);
    t.match((throttled as SignInThrottledError).decision, { limit: 10, remaining: 0, allowed: false });
    server.clock.now = new Date(server.clock.now.getTime() + 15 * 60_000);
    t.ok(await at('192.0.2.99', email, testPassword), 'the window over, the right password works again');
  });

  await t.test('10 failures per client address (IPv6 per /64), across accounts', async (t) => {
    for (let attempt = 0; attempt < 10; attempt++) {
      await refusal(at(`2001:db8:1:2::${attempt + 1}`, `guess-${attempt}@example.test`, 'wrong-password-1'));
    }
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    t.type(await refusal(at('2001:db8:1:2:ffff::9', email, testPassword)), SignInThrottledError, 'the same /64 is refused');
    t.ok(await at('2001:db8:1:3::1', email, testPassword), 'another /64 is not');
  });

  await t.test('parallel guesses are counted before they are checked', async (t) => {
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const results = await Promise.allSettled(Array.from({ length: 14 }, (_, index) => at(`203.0.113.${index + 1}`, email, `wrong-${index}-password`)));
    const throttled = results.filter((result) => result.status === 'rejected' && result.reason instanceof SignInThrottledError);
    t.equal(throttled.length, 4, 'only 10 reach the password check');
  });

  await t.test('a success does not count against the limits', async (t) => {
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    for (let attempt = 0; attempt < 12; attempt++) await at('198.51.100.50', email, testPassword);
    t.pass('12 sign-ins from one address in a row');
  });
});
