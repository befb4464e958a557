import t from 'tap';
import { AuthenticationError } from '../../../../server/errors.js';
import { createPasswordUser, signIn, testPassword, type SignedIn } from '../../../helpers/sign-in.js';
import { startFakeTwilio } from '../../../helpers/fake-twilio.js';
import { createTenant, startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { enrollTotp } from '../../../helpers/two-factor.js';

const advance = (server: TestServer, ms: number) => {
  server.clock.now = new Date(server.clock.now.getTime() + ms);
};

t.test('SMS as a second factor, sent through Twilio (a local fake that checks the requests)', async (t) => {
  const twilio = await startFakeTwilio();
  t.teardown(twilio.close);
  const server = await startTestServer({
    now: new Date('2026-03-02T10:00:10Z'),
    sms: twilio.settings(),
  });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now);
  const { accounts } = server.services;
  let numbers = 0;
  // Each test has its own numbers and address: the per-number limit of one never counts against the next.
  const newPhone = () => `+1415555${String(++numbers).padStart(4, '0')}`;
  const member = async () => {
    const user = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    return { ...user, session: await signIn(server, user.email) };
  };
  const startEnrollment = (session: SignedIn, phone: string) => server.request('POST', '/v1/user/two-factor/sms', { headers: session.headers(), body: { phone } });
  const verifyEnrollment = (session: SignedIn, code: string) => server.request('POST', '/v1/user/two-factor/sms/verify', { headers: session.headers(), body: { code } });
  const enrollSms = async (session: SignedIn, phone = newPhone()) => {
    t.equal((await startEnrollment(session, phone)).status, 200);
    const verified = await verifyEnrollment(session, twilio.lastCode(phone));
    t.equal(verified.status, 200, verified.text);
    return { phone, recoveryCodes: verified.body.recovery_codes as string[] };
  };
  const passwordStep = async (email: string) => {
    const outcome = await accounts.signIn.signIn({ email, password: testPassword, ip: '198.51.100.7', userAgent: 'test' }, server.clock.now);
    t.equal(outcome.kind, 'second_factor', 'the password alone does not sign in');
    return outcome.kind === 'second_factor' ? outcome.pendingToken : '';
  };
  const smsStep = (pendingToken: string, code: string) =>
    accounts.secondFactorSignIn.finish({ pendingToken, kind: 'sms', code, ip: '198.51.100.7', userAgent: 'test' }, server.clock.now);

  await t.test('enrollment: a code texted to the number; the number counts once the code comes back', async (t) => {
    const { userId, session } = await member();
    const elsewhere = await signIn(server, (await server.request('GET', '/v1/user', { headers: session.headers() })).body.email);
    const phone = '+1 (415) 555-0999';
    const started = await startEnrollment(session, phone);
    t.equal(started.status, 200, started.text);
    t.same(started.body, { phone_ending: '99', expires_at: '2026-03-02T10:10:10.000Z' });
    t.equal(started.headers.get('cache-control'), 'no-store');
    const sent = twilio.messages.at(-1)!;
    t.equal(sent.to, '+14155550999', 'sent to the number in E.164');
    t.match(sent.body, /^Your dbmon code is \d{6}\. It expires in 10 minutes\./);
    t.equal((await server.request('GET', '/v1/user', { headers: session.headers() })).body.two_factor_enabled, false, 'not before the code');
    const code = twilio.lastCode('+14155550999');
    const wrong = await verifyEnrollment(session, code === '000000' ? '111111' : '000000');
    t.equal(wrong.status, 400);
    t.equal(wrong.body.error.code, 'invalid_code');
    const verified = await verifyEnrollment(session, code);
    t.equal(verified.status, 200, verified.text);
    t.equal(verified.body.recovery_codes.length, 10, 'the first factor comes with recovery codes');
    t.equal((await server.request('GET', '/v1/user', { headers: session.headers() })).body.two_factor_enabled, true);
    t.equal((await server.request('GET', '/v1/user', { headers: elsewhere.headers() })).status, 401, 'adding a factor ends the other sessions');
    t.equal((await verifyEnrollment(session, code)).body.error.code, 'no_enrollment', 'a code works once');
    const again = await startEnrollment(session, newPhone());
    t.equal(again.status, 409);
    t.equal(again.body.error.code, 'already_enabled');
    t.match(server.db.prepare("SELECT action, details FROM audit_log WHERE target_id = ? AND action LIKE 'two_factor.%'").all(userId), [{ action: 'two_factor.enabled', details: '{"method":"sms"}' }]);
    t.notMatch(server.logLines.join('\n'), new RegExp(code), 'the code is not in the log');
  });

  await t.test('a number is checked at the edge', async (t) => {
    const { session } = await member();
    for (const phone of ['4155550100', '+0123456789', '+1415', 'tel:+14155550100', '+1415555010012345']) {
      const refused = await startEnrollment(session, phone);
      t.equal(refused.status, 400, phone);
      t.equal(refused.body.error.param, 'phone', phone);
    }
  });

  await t.test('attack: an enrollment code expires after 10 minutes (injected clock)', async (t) => {
    const { session } = await member();
    const phone = newPhone();
    await startEnrollment(session, phone);
    advance(server, 10 * 60_000);
    const late = await verifyEnrollment(session, twilio.lastCode(phone));
    t.equal(late.status, 400);
    t.equal(late.body.error.code, 'invalid_code');
    await startEnrollment(session, phone);
    advance(server, 10 * 60_000 - 1);
    t.equal((await verifyEnrollment(session, twilio.lastCode(phone))).status, 200, 'a code sent again works until its own 10 minutes are up');
  });

  await t.test("attack: the code sent to one number does not confirm another; 5 wrong codes end the code", async (t) => {
    const { session } = await member();
    const mine = newPhone();
    const victims = newPhone();
    await startEnrollment(session, mine);
    const myCode = twilio.lastCode(mine);
    await startEnrollment(session, victims);
    t.equal((await verifyEnrollment(session, myCode)).status, 400, "my code cannot confirm a number I switched to and do not hold");
    const code = twilio.lastCode(victims);
    // That was the first wrong code for this one; four more make five.
    for (let attempt = 0; attempt < 4; attempt++) await verifyEnrollment(session, String((Number(code) + 1 + attempt) % 1_000_000).padStart(6, '0'));
    t.equal((await verifyEnrollment(session, code)).status, 400, 'the right code after 5 wrong ones');
  });

  await t.test('attack: sends are limited per user and per number (5 an hour), then 429', async (t) => {
    const { session } = await member();
    for (let send = 0; send < 5; send++) t.equal((await startEnrollment(session, newPhone())).status, 200);
    const refused = await startEnrollment(session, newPhone());
    t.equal(refused.status, 429, 'a sixth message for the user, whatever the number');
    t.equal(refused.body.error.type, 'rate_limit_exceeded');

    const shared = newPhone();
    for (let user = 0; user < 5; user++) t.equal((await startEnrollment((await member()).session, shared)).status, 200);
    const sent = twilio.messages.length;
    t.equal((await startEnrollment((await member()).session, shared)).status, 429, 'a sixth message to one number, whatever the user');
    t.equal(twilio.messages.length, sent, 'nothing went out');
    advance(server, 3_600_000);
    t.equal((await startEnrollment((await member()).session, shared)).status, 200, 'an hour later');
  });

  await t.test('sign-in: a code sent on request finishes the pending sign-in that asked for it, once', async (t) => {
    const { email, session } = await member();
    const { phone } = await enrollSms(session);
    const pendingToken = await passwordStep(email);
    const sent = await accounts.secondFactorSignIn.sendSmsCode(pendingToken, server.clock.now);
    t.equal(sent.phoneEnding, phone.slice(-2));
    const code = twilio.lastCode(phone);
    const started = await smsStep(pendingToken, code);
    t.ok(started.token);
    const entry = server.db.prepare("SELECT details FROM audit_log WHERE action = 'sign_in.succeeded' ORDER BY seq DESC LIMIT 1").pluck().get() as string;
    t.same(JSON.parse(entry), { factors: ['password', 'sms'] });
    await t.rejects(smsStep(await passwordStep(email), code), { code: 'invalid_second_factor' }, 'a used code never again');
  });

  await t.test('attack: a sign-in code is refused for another sign-in attempt of the same user', async (t) => {
    const { email, session } = await member();
    const { phone } = await enrollSms(session);
    const asked = await passwordStep(email);
    await accounts.secondFactorSignIn.sendSmsCode(asked, server.clock.now);
    const code = twilio.lastCode(phone);
    const other = await passwordStep(email);
    await t.rejects(smsStep(other, code), { code: 'invalid_second_factor' }, 'the code of the first attempt, given to the second');
    await t.resolves(smsStep(asked, code), 'it still works for the attempt that asked');
  });

  await t.test('attack: a sign-in code dies with its pending sign-in (5 minutes), and with the factor', async (t) => {
    const { userId, email, session } = await member();
    const { phone } = await enrollSms(session);
    const stale = await passwordStep(email);
    await accounts.secondFactorSignIn.sendSmsCode(stale, server.clock.now);
    advance(server, 5 * 60_000);
    await t.rejects(smsStep(stale, twilio.lastCode(phone)), { code: 'sign_in_expired' });
    await t.rejects(accounts.secondFactorSignIn.sendSmsCode(stale, server.clock.now), AuthenticationError, 'nothing is sent for an expired sign-in');

    const pending = await passwordStep(email);
    await accounts.secondFactorSignIn.sendSmsCode(pending, server.clock.now);
    accounts.twoFactor.reset({ orgId: tenant.orgId, actor: null, credential: null, ip: null, userAgent: null }, (await server.services.accounts.profile.get(tenant.orgId, userId)), server.clock.now);
    await t.rejects(smsStep(pending, twilio.lastCode(phone)), { code: 'invalid_second_factor' }, 'a number reset by an admin no longer signs in');
  });

  await t.test('a second method: SMS beside an authenticator app keeps the recovery codes; removing it needs the password', async (t) => {
    const { email, session: before } = await member();
    await enrollTotp(server, before);
    const { recoveryCodes } = await enrollSms(before);
    t.same(recoveryCodes, [], 'no new set: the codes of the app stay');
    t.equal(server.db.prepare('SELECT count(*) FROM recovery_codes rc JOIN users u ON u.id = rc.user_id WHERE u.email = ?').pluck().get(email), 10);
    const remove = (body: object) => server.request('DELETE', '/v1/user/two-factor/sms', { headers: before.headers(), body });
    t.equal((await remove({ password: 'not-my-password-at-all' })).body.error.code, 'reauthentication_required');
    t.equal((await remove({ password: testPassword })).status, 204);
    t.equal((await server.request('GET', '/v1/user', { headers: before.headers() })).body.two_factor_enabled, true, 'the app is still a factor');
  });

  await t.test('a provider that refuses: 503 sms_not_sent, logged without the code', async (t) => {
    const { session } = await member();
    twilio.outage = { status: 401, code: 20003, message: 'Authenticate' };
    t.teardown(() => {
      twilio.outage = undefined;
    });
    const refused = await startEnrollment(session, newPhone());
    t.equal(refused.status, 503);
    t.equal(refused.body.error.code, 'sms_not_sent');
    t.ok(server.logLines.some((line) => line.includes('SMS not sent') && line.includes('20003')), 'the reason is logged');
  });
});

t.test('without sms.sender, SMS is not offered: 409 sms_not_configured', async (t) => {
  const server = await startTestServer();
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now);
  const user = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
  const session = await signIn(server, user.email);
  const refused = await server.request('POST', '/v1/user/two-factor/sms', { headers: session.headers(), body: { phone: '+14155550100' } });
  t.equal(refused.status, 409);
  t.equal(refused.body.error.code, 'sms_not_configured');
});
