import t from 'tap';
import { formField, PageClient, type PageResponse } from '../../helpers/page-client.js';
import { createPasswordUser, signIn } from '../../helpers/sign-in.js';
import { startSmtpReceiver } from '../../helpers/smtp-receiver.js';
import { enrollTotp } from '../../helpers/two-factor.js';
import { createTenant, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { waitUntil } from '../../helpers/wait-until.js';

const newPassword = 'a-fresh-and-long-password';
const tokenOf = (url: string) => /\/([0-9A-Za-z]{43})$/.exec(url)![1]!;

/** Fetches the form at `path` and posts it with these fields, as a browser would. */
async function submit(client: PageClient, path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<PageResponse> {
  const form = await client.get(path, headers);
  return client.postForm(path, { csrf_token: formField(form.text, 'csrf_token') ?? '', ...fields }, headers);
}

/** A page's text without what differs between any two responses (nonces, CSRF tokens). */
function comparable(text: string): string {
  return text.replace(/nonce="[^"]*"/g, '').replace(/name="csrf_token" value="[^"]*"/g, '');
}

async function invite(server: TestServer, session: { headers: () => Record<string, string> }, email: string): Promise<string> {
  const created = await server.request('POST', '/v1/users', { headers: session.headers(), body: { email, role: 'member' } });
  return tokenOf(created.body.invitation.url as string);
}

t.test('invitation and password-reset pages', async (t) => {
  const receiver = await startSmtpReceiver();
  t.teardown(receiver.close);
  const server = await startTestServer({
    now: new Date('2026-11-24T09:00:00Z'),
    email: { smtpUrl: receiver.url, from: 'dbmon <dbmon@example.test>' },
    trustedProxies: ['127.0.0.1'],
  });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now, 'pro', 'Acme Ops');
  const owner = await createPasswordUser(server.services, tenant.orgId, 'owner', server.clock.now);
  const ownerSession = await signIn(server, owner.email);
  const tokensSeen: string[] = [];

  await t.test('an invitation: the page names the invitee; accepting sets name and password and signs in', async (t) => {
    const token = await invite(server, ownerSession, 'ivy@example.test');
    tokensSeen.push(token);
    const client = new PageClient(server.url);
    const form = await client.get(`/invitations/${token}`);
    t.equal(form.status, 200);
    t.match(form.text, 'ivy@example.test');
    t.equal(form.headers.get('referrer-policy'), 'no-referrer', 'the token never leaves in a Referer');
    t.match(form.headers.get('content-security-policy'), /default-src 'none'/);
    const accepted = await submit(client, `/invitations/${token}`, { name: 'Ivy', password: newPassword });
    t.equal(accepted.status, 303, accepted.text);
    t.equal(accepted.location, '/');
    t.ok(client.cookies.get('dbmon_session'), 'signed in');
    const home = await client.get('/');
    t.match(home.text, '<h1>Overview</h1>');
    t.match(home.text, '<span>ivy@example.test</span>', 'signed in as the invitee');
    t.equal(server.db.prepare<[string], string>('SELECT name FROM users WHERE id = ?').pluck().get(userIdOf(server, 'ivy@example.test')), 'Ivy');
    t.equal(server.db.prepare<[string], string>('SELECT status FROM users WHERE id = ?').pluck().get(userIdOf(server, 'ivy@example.test')), 'active');
  });

  await t.test('attack: an invitation link works once', async (t) => {
    const token = await invite(server, ownerSession, 'once@example.test');
    tokensSeen.push(token);
    const first = new PageClient(server.url);
    t.equal((await submit(first, `/invitations/${token}`, { name: 'Once', password: newPassword })).status, 303);
    const second = new PageClient(server.url);
    const reused = await second.get(`/invitations/${token}`);
    t.equal(reused.status, 404);
    t.match(reused.headers.get('content-type'), /^text\/html/);
    t.match(reused.text, 'This link does not work');
    t.equal(reused.headers.get('referrer-policy'), 'no-referrer');
    const form = await new PageClient(server.url).get('/login');
    const posted = await second.postForm(`/invitations/${token}`, { csrf_token: formField(form.text, 'csrf_token') ?? '', name: 'Mallory', password: 'another-long-password-1' });
    t.equal(posted.status, 404, 'a second acceptance is refused');
    t.equal(second.cookies.get('dbmon_session'), undefined);
  });

  await t.test('attack: an expired invitation and a made-up token show the same error page', async (t) => {
    const token = await invite(server, ownerSession, 'late@example.test');
    tokensSeen.push(token);
    const client = new PageClient(server.url);
    const form = await client.get(`/invitations/${token}`);
    t.equal(form.status, 200);
    const saved = server.clock.now;
    server.clock.now = new Date(saved.getTime() + 7 * 86_400_000);
    try {
      const expired = await client.postForm(`/invitations/${token}`, { csrf_token: formField(form.text, 'csrf_token') ?? '', name: 'Late', password: newPassword });
      t.equal(expired.status, 404, 'past 7 days');
      t.equal(client.cookies.get('dbmon_session'), undefined);
      const unknown = await client.get(`/invitations/${'A'.repeat(43)}`);
      const malformed = await client.get('/invitations/short');
      t.equal(unknown.status, 404);
      t.equal(malformed.status, 404);
      t.equal(comparable(unknown.text), comparable(expired.text), 'one answer whatever the reason');
    } finally {
      server.clock.now = saved;
    }
  });

  await t.test('attack: an acceptance posted without this browser’s CSRF token is refused and leaves the link usable', async (t) => {
    const token = await invite(server, ownerSession, 'csrf@example.test');
    tokensSeen.push(token);
    const client = new PageClient(server.url);
    const refused = await client.postForm(`/invitations/${token}`, { name: 'X', password: newPassword });
    t.equal(refused.status, 403);
    t.equal((await client.get(`/invitations/${token}`)).status, 200, 'still usable');
  });

  await t.test('a weak password is refused on the form, which keeps the name', async (t) => {
    const token = await invite(server, ownerSession, 'weak@example.test');
    tokensSeen.push(token);
    const client = new PageClient(server.url);
    const refused = await submit(client, `/invitations/${token}`, { name: 'Weak', password: 'short' });
    t.equal(refused.status, 400);
    t.match(refused.text, /12 to 256 characters/);
    t.equal(formField(refused.text, 'name'), 'Weak');
    t.equal((await client.get(`/invitations/${token}`)).status, 200, 'still usable');
  });

  await t.test('a password reset: sets the password, ends every other session, signs this browser in', async (t) => {
    const user = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const elsewhere = await signIn(server, user.email);
    const link = server.services.accounts.passwordResets.issue(user.email, server.clock.now);
    const token = tokenOf(link.url);
    tokensSeen.push(token);
    const client = new PageClient(server.url);
    const form = await client.get(`/password-reset/${token}`);
    t.equal(form.status, 200);
    t.match(form.text, user.email);
    t.equal(form.headers.get('referrer-policy'), 'no-referrer');
    const done = await submit(client, `/password-reset/${token}`, { password: newPassword });
    t.equal(done.status, 303, done.text);
    t.equal(done.location, '/');
    t.equal((await server.request('GET', '/v1/user', { headers: elsewhere.headers() })).status, 401, 'the other session ended');
    t.match((await client.get('/')).text, '<h1>Overview</h1>');
    await signIn(server, user.email, newPassword);
    t.equal((await client.get(`/password-reset/${token}`)).status, 404, 'attack: the link works once');
    const audit = await server.request('GET', '/v1/audit-log?action=user.password_reset', { headers: ownerSession.headers() });
    t.match(audit.body.data[0], { target: { id: user.userId } });
  });

  await t.test('attack: a reset link stands for the password only: a user with a second factor is asked for it', async (t) => {
    const user = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    await enrollTotp(server, await signIn(server, user.email));
    const token = tokenOf(server.services.accounts.passwordResets.issue(user.email, server.clock.now).url);
    tokensSeen.push(token);
    const client = new PageClient(server.url);
    const done = await submit(client, `/password-reset/${token}`, { password: newPassword });
    t.equal(done.status, 303, done.text);
    t.equal(done.location, '/login/two-factor');
    t.equal(client.cookies.get('dbmon_session'), undefined, 'no session before the second factor');
    t.ok(client.cookies.get('dbmon_pending_sign_in'), 'a pending sign-in waits for it');
  });

  await t.test('attack: a reset link expires after an hour', async (t) => {
    const user = await createPasswordUser(server.services, tenant.orgId, 'viewer', server.clock.now);
    const token = tokenOf(server.services.accounts.passwordResets.issue(user.email, server.clock.now).url);
    tokensSeen.push(token);
    const saved = server.clock.now;
    server.clock.now = new Date(saved.getTime() + 3_600_000);
    try {
      const expired = await new PageClient(server.url).get(`/password-reset/${token}`);
      t.equal(expired.status, 404);
      t.match(expired.text, 'This link does not work');
      t.match(expired.text, 'href="/password-reset"', 'the page offers a new link');
    } finally {
      server.clock.now = saved;
    }
  });

  await t.test('forgot password: the login form leads to a request form', async (t) => {
    const login = await new PageClient(server.url).get('/login');
    t.match(login.text, 'href="/password-reset"');
    const form = await new PageClient(server.url).get('/password-reset');
    t.equal(form.status, 200);
    t.match(form.text, '<label for="email">');
  });

  await t.test('attack: the request form answers the same for an account and for no account', async (t) => {
    const user = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    receiver.received.length = 0;
    const known = await submit(new PageClient(server.url), '/password-reset', { email: user.email }, { 'x-forwarded-for': '198.51.100.1' });
    const unknown = await submit(new PageClient(server.url), '/password-reset', { email: 'nobody@example.test' }, { 'x-forwarded-for': '198.51.100.1' });
    t.equal(known.status, 200);
    t.equal(unknown.status, known.status);
    t.equal(comparable(unknown.text), comparable(known.text), 'the same page, word for word');
    await waitUntil('the reset mail', async () => receiver.received.length === 1);
    t.same(receiver.received[0]!.to, [user.email], 'only the account gets mail');
  });

  await t.test('attack: the answer does not wait for the mail server (no timing difference)', async (t) => {
    const slow = await startSmtpReceiver({ greetingDelayMs: 1500 });
    t.teardown(slow.close);
    const slowServer = await startTestServer({ email: { smtpUrl: slow.url, from: 'dbmon@example.test' } });
    t.teardown(slowServer.close);
    const org = createTenant(slowServer.services, slowServer.clock.now, 'pro');
    const user = await createPasswordUser(slowServer.services, org.orgId, 'member', slowServer.clock.now);
    const client = new PageClient(slowServer.url);
    const form = await client.get('/password-reset');
    const started = performance.now();
    const answer = await client.postForm('/password-reset', { csrf_token: formField(form.text, 'csrf_token') ?? '', email: user.email });
    const ms = performance.now() - started;
    t.equal(answer.status, 200);
    t.ok(ms < 1000, `answered in ${Math.round(ms)} ms, before the mail server greeted`);
    await waitUntil('the mail', async () => slow.received.length === 1, 5000);
  });

  await t.test('attack: sends are limited per account, whatever the email’s case or spacing', async (t) => {
    const user = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    receiver.received.length = 0;
    const variants = [user.email, user.email.toUpperCase(), ` ${user.email} `, user.email, user.email];
    for (const [index, email] of variants.entries()) {
      const answer = await submit(new PageClient(server.url), '/password-reset', { email }, { 'x-forwarded-for': `203.0.113.${index + 1}` });
      t.equal(answer.status, 200, 'the same answer, sent or not');
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.equal(receiver.received.filter((mail) => mail.to.includes(user.email)).length, 3, 'three mails an hour for one account');
    server.clock.now = new Date(server.clock.now.getTime() + 3_600_000);
    await submit(new PageClient(server.url), '/password-reset', { email: user.email }, { 'x-forwarded-for': '203.0.113.9' });
    await waitUntil('a mail in the next hour', async () => receiver.received.length === 4);
  });

  await t.test('attack: requests are limited per client address, an IPv6 /64 counting as one', async (t) => {
    let last: PageResponse | undefined;
    for (let request = 0; request < 11; request++) {
      last = await submit(new PageClient(server.url), '/password-reset', { email: `someone-${request}@example.test` }, { 'x-forwarded-for': `2001:db8:7:7::${request + 1}` });
      if (request < 10) t.equal(last.status, 200, `request ${request + 1}`);
    }
    t.equal(last!.status, 429, 'the 11th from the /64 is refused, whichever email it names');
    t.match(last!.headers.get('retry-after'), /^\d+$/);
    t.match(last!.text, 'Too many');
    const other = await submit(new PageClient(server.url), '/password-reset', { email: 'someone@example.test' }, { 'x-forwarded-for': '2001:db8:7:8::1' });
    t.equal(other.status, 200, 'another /64 is not refused');
  });

  await t.test('attack: a failing page logs no token', async (t) => {
    const token = await invite(server, await signIn(server, owner.email), 'fault@example.test');
    tokensSeen.push(token);
    const { invitations } = server.services.accounts;
    const original = invitations.invitee.bind(invitations);
    invitations.invitee = () => {
      throw new Error('storage is gone');
    };
    try {
      const failed = await new PageClient(server.url).get(`/invitations/${token}`);
      t.equal(failed.status, 500);
    } finally {
      invitations.invitee = original;
    }
    t.ok(server.logLines.some((line) => line.includes('page failed')), 'the fault is logged');
  });

  await t.test('signing out is in the audit log', async (t) => {
    const owner2 = await signIn(server, owner.email);
    const member = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const session = await signIn(server, member.email);
    const client = new PageClient(server.url);
    client.cookies.set('dbmon_session', session.token);
    t.equal((await client.postForm('/logout', { csrf_token: session.csrfToken })).status, 303);
    const audit = await server.request('GET', '/v1/audit-log?action=session.signed_out', { headers: owner2.headers() });
    t.match(audit.body.data[0], { actor: { id: member.userId }, target: { type: 'session', id: session.sessionId } });
  });

  t.test('attack: no token reached a log line', async (t) => {
    t.ok(tokensSeen.length > 5);
    for (const token of tokensSeen) t.notOk(server.logLines.some((line) => line.includes(token)), `token ${token.slice(0, 6)}… is in no log line`);
    t.ok(server.logLines.some((line) => line.includes('"route":"/invitations/:token"')), 'the access log names the route');
    t.end();
  });
});

function userIdOf(server: TestServer, email: string): string {
  return server.db.prepare<[string], string>('SELECT id FROM users WHERE email = ?').pluck().get(email)!;
}
