import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { openStateDir } from '../../../../server/state-dir.js';
import { startFakeTwilio, type FakeTwilio } from '../../../helpers/fake-twilio.js';
import { createPasswordUser, signIn, testPassword } from '../../../helpers/sign-in.js';
import { tempDir } from '../../../helpers/temp-dir.js';
import { createTenant, startTestServer, type TestServer } from '../../../helpers/test-server.js';

// An attacker holding a copy of the state directory's database (a backup, a stolen disk) reads it
// byte by byte: no phone number of the SMS factor may be there in the clear.

/** The state database's files as an attacker reads them: the database and its write-ahead log. */
function stateFileBytes(server: TestServer): string {
  return ['dbmon.db', 'dbmon.db-wal']
    .map((name) => join(server.stateDir, name))
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file).toString('latin1'))
    .join('');
}

/** The password, then a code texted to the user's phone: the second factor still reaches the number. */
async function signInBySms(t: Test, server: TestServer, twilio: FakeTwilio, email: string, phone: string): Promise<void> {
  const { accounts } = server.services;
  const outcome = await accounts.signIn.signIn({ email, password: testPassword, ip: '198.51.100.9', userAgent: 'test' }, server.clock.now);
  if (outcome.kind !== 'second_factor') throw new Error('the password alone signed in');
  const sent = await accounts.secondFactorSignIn.sendSmsCode(outcome.pendingToken, server.clock.now);
  t.equal(sent.phoneEnding, phone.slice(-2));
  t.equal(twilio.messages.at(-1)?.to, phone, 'the code went to the number');
  const started = await accounts.secondFactorSignIn.finish(
    { pendingToken: outcome.pendingToken, kind: 'sms', code: twilio.lastCode(phone), ip: '198.51.100.9', userAgent: 'test' },
    server.clock.now,
  );
  t.ok(started.token, 'and its code signs in');
}

t.test('phone numbers of the SMS factor are sealed at rest', async (t) => {
  const twilio = await startFakeTwilio();
  t.teardown(twilio.close);
  const now = new Date('2026-03-02T10:00:10Z');

  await t.test('attack: a number set up through the API is nowhere in the database files', async (t) => {
    const server = await startTestServer({ now, sms: twilio.settings() });
    t.teardown(server.close);
    const tenant = createTenant(server.services, server.clock.now);
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const session = await signIn(server, email);
    const phone = '+14155550142';
    t.equal((await server.request('POST', '/v1/user/two-factor/sms', { headers: session.headers(), body: { phone } })).status, 200);
    t.notOk(stateFileBytes(server).includes('4155550142'), 'pending: not in the clear');
    const verified = await server.request('POST', '/v1/user/two-factor/sms/verify', { headers: session.headers(), body: { code: twilio.lastCode(phone) } });
    t.equal(verified.status, 200, verified.text);
    t.notOk(stateFileBytes(server).includes('4155550142'), 'confirmed: not in the clear');
    await signInBySms(t, server, twilio, email, phone);
  });

  await t.test('attack: a number stored in the clear before migration 0018 is sealed in place when the server starts', async (t) => {
    const stateDir = tempDir(t, 'dbmon-phones-');
    const phone = '+442079460958';
    // The state of a server before 0018: the number in a text column, as it was typed.
    const before = await startTestServer({ stateDir, now });
    const tenant = createTenant(before.services, now);
    const { userId, email } = await createPasswordUser(before.services, tenant.orgId, 'member', now);
    await before.close();
    const { db } = openStateDir(stateDir, undefined);
    db.exec('ALTER TABLE two_factor_methods RENAME COLUMN sealed_phone TO phone; DELETE FROM schema_migrations WHERE version = 18');
    db.prepare("INSERT INTO two_factor_methods (user_id, method, phone, confirmed_at, created_at) VALUES (?, 'sms', ?, ?, ?)").run(userId, phone, now.toISOString(), now.toISOString());
    db.prepare('UPDATE users SET two_factor_enabled = 1 WHERE id = ?').run(userId);
    db.close();
    t.ok(readFileSync(join(stateDir, 'dbmon.db')).toString('latin1').includes('2079460958'), 'the number was in the file');

    const server = await startTestServer({ stateDir, now, sms: twilio.settings() });
    t.teardown(server.close);
    t.notOk(stateFileBytes(server).includes('2079460958'), 'sealed, and no copy left in free space or the log');
    await signInBySms(t, server, twilio, email, phone);
  });
});
