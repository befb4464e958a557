import t from 'tap';
import { AuthenticationError } from '../../../../server/errors.js';
import { SignInThrottledError } from '../../../../server/auth/sessions/sign-in-service.js';
import { createPasswordUser, signIn, testPassword } from '../../../helpers/sign-in.js';
import { createTenant, startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { enrollTotp, signInWithSecondFactor, totpCode } from '../../../helpers/two-factor.js';

const advance = (server: TestServer, ms: number) => {
  server.clock.now = new Date(server.clock.now.getTime() + ms);
};

t.test('two-factor authentication through the API and the sign-in services', async (t) => {
  // Ten seconds into a 30 s step: a code of this step stays valid for the requests of one test.
  const server = await startTestServer({ now: new Date('2026-03-02T10:00:10Z') });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now);
  const { accounts } = server.services;
  // Each member signs in from an address of their own, so one test's refusals never count against the next's.
  let addresses = 0;
  let clientIp = '';
  const member = async () => {
    clientIp = `198.51.100.${++addresses}`;
    const user = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    return { ...user, session: await signIn(server, user.email) };
  };
  const passwordStep = async (email: string, ip = clientIp) => {
    const outcome = await accounts.signIn.signIn({ email, password: testPassword, ip, userAgent: 'test' }, server.clock.now);
    t.equal(outcome.kind, 'second_factor', 'the password alone does not sign in');
    return outcome.kind === 'second_factor' ? outcome.pendingToken : '';
  };
  const secondStep = (pendingToken: string, kind: 'totp' | 'recovery_code', code: string, ip = clientIp) =>
    accounts.secondFactorSignIn.finish({ pendingToken, kind, code, ip, userAgent: 'test' }, server.clock.now);

  await t.test('enrollment: a sealed 160-bit secret, its URI and SVG QR code; a code finishes it and answers 10 recovery codes', async (t) => {
    const { userId, email, session } = await member();
    const elsewhere = await signIn(server, email);
    const started = await server.request('POST', '/v1/user/two-factor/totp', { headers: session.headers() });
    t.equal(started.status, 200, started.text);
    t.equal(started.headers.get('cache-control'), 'no-store');
    t.match(started.body.secret, /^[A-Z2-7]{32}$/, '32 Base32 characters: 160 bits');
    t.equal(started.body.otpauth_uri, `otpauth://totp/dbmon:${encodeURIComponent(email)}?secret=${started.body.secret}&issuer=dbmon`);
    t.match(started.body.qr_code, /^data:image\/svg\+xml;base64,/);
    t.match(Buffer.from(started.body.qr_code.split(',')[1], 'base64').toString(), /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const stored = server.db.prepare('SELECT secret FROM two_factor_methods WHERE user_id = ?').pluck().get(userId) as Buffer;
    t.notOk(stored.toString('latin1').includes(started.body.secret), 'the secret is not stored in the clear');

    const wrong = await server.request('POST', '/v1/user/two-factor/totp/verify', { headers: session.headers(), body: { code: '000000' === totpCode(started.body.secret, server.clock.now) ? '111111' : '000000' } });
    t.equal(wrong.status, 400);
    t.equal(wrong.body.error.code, 'invalid_code');
    t.equal((await server.request('GET', '/v1/user', { headers: session.headers() })).body.two_factor_enabled, false, 'not before a right code');

    const verified = await server.request('POST', '/v1/user/two-factor/totp/verify', { headers: session.headers(), body: { code: totpCode(started.body.secret, server.clock.now) } });
    t.equal(verified.status, 200, verified.text);
    t.equal(verified.body.recovery_codes.length, 10);
    t.equal(new Set(verified.body.recovery_codes).size, 10);
    for (const code of verified.body.recovery_codes) t.match(code, /^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){3}$/);
    const hashes = server.db.prepare('SELECT code_hash FROM recovery_codes WHERE user_id = ?').pluck().all(userId) as Buffer[];
    t.equal(hashes.length, 10);
    t.notOk(hashes.some((hash) => verified.body.recovery_codes.some((code: string) => hash.toString('latin1').includes(code))), 'codes are stored hashed');
    t.equal((await server.request('GET', '/v1/user', { headers: session.headers() })).body.two_factor_enabled, true);
    t.equal((await server.request('GET', '/v1/user', { headers: elsewhere.headers() })).status, 401, 'adding a factor ends the other sessions');
    const again = await server.request('POST', '/v1/user/two-factor/totp', { headers: session.headers() });
    t.equal(again.status, 409, 'an app already set up is not replaced without removing it');
    t.equal(again.body.error.code, 'already_enabled');
    const audit = server.db.prepare("SELECT action, details FROM audit_log WHERE target_id = ? AND action LIKE 'two_factor.%'").all(userId);
    t.match(audit, [{ action: 'two_factor.enabled' }]);
  });

  await t.test('sign-in: the password leads to a pending sign-in; a TOTP code finishes it with a new session id', async (t) => {
    const { email, session } = await member();
    const { secret } = await enrollTotp(server, session);
    advance(server, 30_000);
    const pendingToken = await passwordStep(email);
    const started = await accounts.secondFactorSignIn.finish(
      { pendingToken, kind: 'totp', code: totpCode(secret, server.clock.now), ip: clientIp, userAgent: 'test', currentToken: session.token },
      server.clock.now,
    );
    t.not(started.token, session.token);
    t.not(started.id, session.sessionId, 'the session id is renewed when the factor passes');
    t.equal((await server.request('GET', '/v1/user', { headers: session.headers() })).status, 401, 'the session held before ends');
    t.equal((await server.request('GET', '/v1/user', { headers: { cookie: `dbmon_session=${started.token}` } })).status, 200);
    await t.rejects(secondStep(pendingToken, 'totp', totpCode(secret, server.clock.now, 1)), AuthenticationError, 'a finished pending sign-in is spent');
    const entry = server.db.prepare("SELECT details FROM audit_log WHERE action = 'sign_in.succeeded' ORDER BY seq DESC LIMIT 1").pluck().get() as string;
    t.same(JSON.parse(entry), { factors: ['password', 'totp'] });
  });

  await t.test('attack: a TOTP code replayed within its window is refused', async (t) => {
    const { email, session } = await member();
    const { secret } = await enrollTotp(server, session);
    advance(server, 30_000);
    const code = totpCode(secret, server.clock.now);
    await secondStep(await passwordStep(email), 'totp', code);
    await t.rejects(secondStep(await passwordStep(email), 'totp', code), { code: 'invalid_second_factor' }, 'the same code again, same step');
    await t.rejects(secondStep(await passwordStep(email), 'totp', totpCode(secret, server.clock.now, -1)), { code: 'invalid_second_factor' }, 'nor an earlier step once a later one was used');
    advance(server, 30_000);
    await t.resolves(secondStep(await passwordStep(email), 'totp', totpCode(secret, server.clock.now)), "the next step's code works");
  });

  await t.test('drift: a code one step off is accepted, two steps off refused', async (t) => {
    const { email, session } = await member();
    const { secret } = await enrollTotp(server, session);
    advance(server, 120_000);
    await t.rejects(secondStep(await passwordStep(email), 'totp', totpCode(secret, server.clock.now, -2)), { code: 'invalid_second_factor' }, 'a phone 60 s slow');
    await t.rejects(secondStep(await passwordStep(email), 'totp', totpCode(secret, server.clock.now, 2)), { code: 'invalid_second_factor' }, 'a phone 60 s fast');
    await t.resolves(secondStep(await passwordStep(email), 'totp', totpCode(secret, server.clock.now, -1)), 'a phone 30 s slow');
    advance(server, 90_000);
    await t.resolves(secondStep(await passwordStep(email), 'totp', totpCode(secret, server.clock.now, 1)), 'a phone 30 s fast');
  });

  await t.test('attack: a recovery code works once; a new set voids the old one', async (t) => {
    const { email, session } = await member();
    const { recoveryCodes } = await enrollTotp(server, session);
    const [first, second] = recoveryCodes as [string, string];
    const signedIn = await secondStep(await passwordStep(email), 'recovery_code', ` ${first.toUpperCase().replaceAll('-', '')} `);
    t.ok(signedIn.token, 'typed in capitals without hyphens, it still works');
    await t.rejects(secondStep(await passwordStep(email), 'recovery_code', first), { code: 'invalid_second_factor' }, 'used once, never again');
    const renewed = await server.request('POST', '/v1/user/two-factor/recovery-codes', { headers: { cookie: `dbmon_session=${signedIn.token}`, 'x-csrf-token': signedIn.csrfToken } });
    t.equal(renewed.status, 200, renewed.text);
    t.equal(renewed.body.recovery_codes.length, 10);
    await t.rejects(secondStep(await passwordStep(email), 'recovery_code', second), { code: 'invalid_second_factor' }, 'the old set is void');
    await t.resolves(secondStep(await passwordStep(email), 'recovery_code', renewed.body.recovery_codes[0]));
  });

  await t.test('attack: a pending sign-in ends after 5 minutes and after 5 wrong codes', async (t) => {
    const { email, session } = await member();
    const { secret } = await enrollTotp(server, session);
    const stale = await passwordStep(email);
    advance(server, 5 * 60_000);
    await t.rejects(secondStep(stale, 'totp', totpCode(secret, server.clock.now)), { code: 'sign_in_expired' }, 'a right code 5 minutes later');
    const guessed = await passwordStep(email);
    for (let attempt = 0; attempt < 5; attempt++) {
      await t.rejects(secondStep(guessed, 'recovery_code', `aaaa-aaaa-aaaa-aaa${attempt}`), { code: 'invalid_second_factor' });
    }
    await t.rejects(secondStep(guessed, 'totp', totpCode(secret, server.clock.now)), { code: 'sign_in_expired' }, 'the right code after 5 wrong ones');
    await t.rejects(secondStep('A'.repeat(43), 'totp', totpCode(secret, server.clock.now)), { code: 'sign_in_expired' }, 'a made-up pending token');
  });

  await t.test('attack: wrong codes are limited per account across pending sign-ins (10 in 15 minutes), then 429', async (t) => {
    const { email, session } = await member();
    const { secret } = await enrollTotp(server, session);
    for (let round = 0; round < 2; round++) {
      const pendingToken = await passwordStep(email, `203.0.113.${round + 20}`);
      for (let attempt = 0; attempt < 5; attempt++) await t.rejects(secondStep(pendingToken, 'recovery_code', 'zzzz-zzzz-zzzz-zzzz', `203.0.113.${round + 20}`));
    }
    const pendingToken = await passwordStep(email, '203.0.113.30');
    await t.rejects(secondStep(pendingToken, 'totp', totpCode(secret, server.clock.now), '203.0.113.30'), SignInThrottledError, 'even the right code, from a third address');
    advance(server, 15 * 60_000);
    await t.resolves(secondStep(await passwordStep(email, '203.0.113.30'), 'totp', totpCode(secret, server.clock.now), '203.0.113.30'));
  });

  await t.test('attack: removing a factor needs the password again, whatever the credential', async (t) => {
    const { userId, email, session } = await member();
    await enrollTotp(server, session);
    const elsewhere = await signInWithSecondFactor(server, email, testPassword, { kind: 'recovery_code', code: (await enrollTotpCodes(session)).at(0)! });
    const remove = (body?: object) => server.request('DELETE', '/v1/user/two-factor/totp', { headers: session.headers(), ...(body && { body }) });
    for (const [label, response] of [
      ['no body', await remove()],
      ['no password', await remove({})],
      ['a wrong password', await remove({ password: 'not-my-password-at-all' })],
    ] as const) {
      t.equal(response.status, 403, label);
      t.equal(response.body.error.code, 'reauthentication_required', label);
    }
    t.equal((await server.request('GET', '/v1/user', { headers: session.headers() })).body.two_factor_enabled, true, 'still there');
    const removed = await remove({ password: testPassword });
    t.equal(removed.status, 204, removed.text);
    t.equal((await server.request('GET', '/v1/user', { headers: session.headers() })).body.two_factor_enabled, false);
    t.equal((await server.request('GET', '/v1/user', { headers: elsewhere.headers() })).status, 401, 'removing a factor ends the other sessions');
    t.equal(server.db.prepare('SELECT count(*) FROM recovery_codes WHERE user_id = ?').pluck().get(userId), 0, 'the recovery codes go with the last factor');
    t.equal((await accounts.signIn.signIn({ email, password: testPassword, ip: '127.0.0.1', userAgent: 'test' }, server.clock.now)).kind, 'signed_in');
    t.equal((await remove({ password: testPassword })).status, 404, 'nothing left to remove');
  });

  await t.test("an admin resets a member's second factor (audited, no secret shown); only owners reset owners", async (t) => {
    const { userId, email, session } = await member();
    await enrollTotp(server, session);
    const adminUser = await createPasswordUser(server.services, tenant.orgId, 'admin', server.clock.now);
    const admin = { ...adminUser, session: await signIn(server, adminUser.email) };
    const owner = await createPasswordUser(server.services, tenant.orgId, 'owner', server.clock.now);
    const refused = await server.request('DELETE', `/v1/users/${owner.userId}/two-factor`, { headers: admin.session.headers() });
    t.equal(refused.status, 403);
    const byMember = await server.request('DELETE', `/v1/users/${admin.userId}/two-factor`, { headers: (await signIn(server, (await member()).email)).headers() });
    t.equal(byMember.status, 403, 'a member resets nobody');
    const reset = await server.request('DELETE', `/v1/users/${userId}/two-factor`, { headers: admin.session.headers() });
    t.equal(reset.status, 204, reset.text);
    t.equal(reset.text, '');
    t.equal((await server.request('GET', '/v1/user', { headers: session.headers() })).status, 401, "the member's sessions end");
    t.equal((await accounts.signIn.signIn({ email, password: testPassword, ip: '127.0.0.1', userAgent: 'test' }, server.clock.now)).kind, 'signed_in');
    const entry = server.db.prepare("SELECT actor_id FROM audit_log WHERE action = 'two_factor.reset' AND target_id = ?").pluck().get(userId);
    t.equal(entry, admin.userId);
  });

  async function enrollTotpCodes(session: { headers: () => Record<string, string> }): Promise<string[]> {
    const renewed = await server.request('POST', '/v1/user/two-factor/recovery-codes', { headers: session.headers() });
    return renewed.body.recovery_codes as string[];
  }
});
