import t from 'tap';
import { createTenant, startTestServer } from '../../../helpers/test-server.js';
import { createPasswordUser, signIn } from '../../../helpers/sign-in.js';
import { startSmtpReceiver } from '../../../helpers/smtp-receiver.js';
import { waitUntil } from '../../../helpers/wait-until.js';

const publicUrl = 'http://dbmon.example.test:7117';
const from = 'dbmon <dbmon@example.test>';
const linkIn = (text: string, path: string) => new RegExp(`${publicUrl}/${path}/([0-9A-Za-z]{43})`).exec(text)?.[1];

t.test('with SMTP configured, invitations and resets are mailed', async (t) => {
  const receiver = await startSmtpReceiver({ user: 'mailer', password: 'smtp-secret-pw' });
  t.teardown(receiver.close);
  const server = await startTestServer({ publicUrl, email: { smtpUrl: receiver.url, from } });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now, 'enterprise', 'Mail Org');
  const owner = await createPasswordUser(server.services, tenant.orgId, 'owner', server.clock.now);
  const session = await signIn(server, owner.email);

  await t.test('an invitation goes to the invitee with a link that works', async (t) => {
    const created = await server.request('POST', '/v1/users', { headers: session.headers(), body: { email: 'erin@example.test', role: 'admin' } });
    t.equal(created.status, 201, created.text);
    t.equal(created.body.invitation.email_sent, true);
    t.equal(receiver.received.length, 1);
    const mail = receiver.received[0]!;
    t.same(mail.to, ['erin@example.test']);
    t.equal(mail.headers.to, 'erin@example.test');
    t.equal(mail.headers.from, from);
    t.equal(mail.subject, 'Your invitation to Mail Org on dbmon');
    const token = linkIn(mail.text, 'invitations');
    t.ok(token, mail.text);
    t.equal(`${publicUrl}/invitations/${token}`, created.body.invitation.url, 'the link the admin was shown');
    t.match(mail.text, /7 days/);
    await server.services.accounts.invitations.accept(token!, { name: 'Erin', password: 'a-fresh-and-long-password' }, server.clock.now);
    await signIn(server, 'erin@example.test', 'a-fresh-and-long-password');
  });

  await t.test('a reset request mails the account a link that works, after the answer', async (t) => {
    receiver.received.length = 0;
    server.services.accounts.passwordResets.request(owner.email.toUpperCase(), '127.0.0.1', server.clock.now);
    t.equal(receiver.received.length, 0, 'nothing is sent before the caller has its answer');
    await waitUntil('the reset mail', async () => receiver.received.length === 1);
    const mail = receiver.received[0]!;
    t.same(mail.to, [owner.email]);
    t.equal(mail.subject, 'Reset your dbmon password');
    t.match(mail.text, /1 hour/);
    const token = linkIn(mail.text, 'password-reset');
    t.ok(token, mail.text);
    await server.services.accounts.passwordResets.reset(token!, 'another-fresh-long-password', server.clock.now);
    await signIn(server, owner.email, 'another-fresh-long-password');
    server.services.accounts.passwordResets.request('nobody@example.test', '127.0.0.1', server.clock.now);
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.equal(receiver.received.length, 1, 'an unknown address gets no mail');
  });

  t.notOk(server.logLines.some((line) => line.includes('smtp-secret-pw')), 'the SMTP password is in no log line');
});

t.test('a failing mail server: the link is still shown, the failure logged without the SMTP password', async (t) => {
  const receiver = await startSmtpReceiver({ user: 'mailer', password: 'the-right-one' });
  t.teardown(receiver.close);
  const wrongUrl = receiver.url.replace('the-right-one', 'wrong-smtp-pw');
  const server = await startTestServer({ publicUrl, email: { smtpUrl: wrongUrl, from } });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now);
  const owner = await createPasswordUser(server.services, tenant.orgId, 'owner', server.clock.now);
  const session = await signIn(server, owner.email);
  const created = await server.request('POST', '/v1/users', { headers: session.headers(), body: { email: 'frank@example.test', role: 'viewer' } });
  t.equal(created.status, 201);
  t.match(created.body.invitation, { url: /\/invitations\//, email_sent: false });
  t.equal(receiver.received.length, 0);
  const failure = server.logLines.map((line) => JSON.parse(line)).find((record) => record.msg === 'mail not sent');
  t.ok(failure, 'the failure is logged');
  t.match(failure, { to: 'frank@example.test', code: 'EAUTH' });
  const base64Login = Buffer.from('\0mailer\0wrong-smtp-pw').toString('base64');
  t.notOk(server.logLines.some((line) => line.includes('wrong-smtp-pw') || line.includes(base64Login)), 'no log line holds the password');
});

t.test('a slow mail server changes neither the answer nor the time of a reset request', async (t) => {
  const receiver = await startSmtpReceiver({ greetingDelayMs: 1500 });
  t.teardown(receiver.close);
  const server = await startTestServer({ email: { smtpUrl: receiver.url, from } });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now);
  const owner = await createPasswordUser(server.services, tenant.orgId, 'owner', server.clock.now);
  const { passwordResets } = server.services.accounts;
  const timed = (email: string) => {
    const started = process.hrtime.bigint();
    const answer = passwordResets.request(email, '127.0.0.1', server.clock.now);
    return { answer, ms: Number(process.hrtime.bigint() - started) / 1e6 };
  };
  const known = timed(owner.email);
  const unknown = timed('nobody@example.test');
  t.same(known.answer, unknown.answer);
  t.ok(known.ms < 50, `a known address answers at once (${known.ms.toFixed(2)} ms), not after the mail server`);
  t.ok(unknown.ms < 50, `${unknown.ms.toFixed(2)} ms`);
  await waitUntil('the delayed mail', async () => receiver.received.length === 1);
});

t.test('without SMTP the link is only shown', async (t) => {
  const server = await startTestServer();
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now);
  const owner = await createPasswordUser(server.services, tenant.orgId, 'owner', server.clock.now);
  const session = await signIn(server, owner.email);
  const created = await server.request('POST', '/v1/users', { headers: session.headers(), body: { email: 'gina@example.test', role: 'viewer' } });
  t.match(created.body.invitation, { url: /^http:\/\/localhost\/invitations\/[0-9A-Za-z]{43}$/, email_sent: false });
});
