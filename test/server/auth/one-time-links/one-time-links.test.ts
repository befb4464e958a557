import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { operatorOrigin } from '../../../../server/auth/audit/audit-origin.js';
import { createTenant, startTestServer } from '../../../helpers/test-server.js';
import { createPasswordUser, signIn, testPassword } from '../../../helpers/sign-in.js';

const newPassword = 'a-fresh-and-long-password';
const linkRefused = { name: 'NotFoundError', message: /^This link does not work/ };
const tokenOf = (url: string) => url.split('/').pop()!;

t.test('invitation and password-reset links', async (t) => {
  const server = await startTestServer({ publicUrl: 'https://dbmon.example.test' });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now);
  const { invitations, passwordResets } = server.services.accounts;
  const owner = await createPasswordUser(server.services, tenant.orgId, 'owner', server.clock.now);
  const ownerActor = { userId: owner.userId, role: 'owner' as const };
  const invite = async (email: string) => invitations.invite(ownerActor, tenant.orgId, { email, role: 'member' }, server.clock.now);
  const statusOf = (userId: string) => server.db.prepare('SELECT status FROM users WHERE id = ?').pluck().get(userId);

  await t.test('links are absolute under server.public_url, with 256-bit tokens, 7 days and 1 hour', async (t) => {
    const invited = await invite('links@example.test');
    t.match(invited.invitation.url, /^https:\/\/dbmon\.example\.test\/invitations\/[0-9A-Za-z]{43}$/);
    t.equal(Date.parse(invited.invitation.expiresAt) - server.clock.now.getTime(), 7 * 86_400_000);
    const reset = passwordResets.issue(owner.email, server.clock.now);
    t.match(reset.url, /^https:\/\/dbmon\.example\.test\/password-reset\/[0-9A-Za-z]{43}$/);
    t.equal(Date.parse(reset.expiresAt) - server.clock.now.getTime(), 3_600_000);
    t.equal(invitations.invitee(tokenOf(invited.invitation.url), server.clock.now)?.email, 'links@example.test', 'the page can show whom the link is for');
    t.equal(passwordResets.account(tokenOf(reset.url), server.clock.now)?.email, owner.email);
  });

  await t.test('tokens are not stored in clear: neither the database file nor its WAL holds them', async (t) => {
    const invited = await invite('hashed@example.test');
    const reset = passwordResets.issue(owner.email, server.clock.now);
    const files = readdirSync(server.stateDir).filter((name) => name.startsWith('dbmon.db'));
    t.ok(files.includes('dbmon.db'));
    const bytes = Buffer.concat(files.map((name) => readFileSync(join(server.stateDir, name))));
    t.ok(bytes.includes('hashed@example.test'), 'the files are readable as they are (the test would see a token)');
    for (const url of [invited.invitation.url, reset.url]) {
      t.notOk(bytes.includes(tokenOf(url)), `${url.split('/')[3]} token not in clear`);
    }
  });

  await t.test('an invitation is used once: it sets name and password and makes the user active', async (t) => {
    const invited = await invite('once@example.test');
    const token = tokenOf(invited.invitation.url);
    await t.rejects(invitations.accept(token, { name: 'Once', password: 'password1234' }, server.clock.now), { code: 'password_too_common' });
    t.equal(statusOf(invited.user.id), 'invited', 'a refused password does not use the link up');
    const accepted = await invitations.accept(token, { name: 'Once Only', password: newPassword }, server.clock.now);
    t.match(accepted, { status: 'active', name: 'Once Only' });
    await t.rejects(invitations.accept(token, { name: 'Twice', password: 'another-long-password' }, server.clock.now), linkRefused, 'reuse refused');
    t.equal(invitations.invitee(token, server.clock.now), undefined);
    await signIn(server, 'once@example.test', newPassword);
    await t.rejects(signIn(server, 'once@example.test', 'another-long-password'), 'the second use changed nothing');
  });

  await t.test('a reset link is used once and ends every session of the user', async (t) => {
    const user = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const first = await signIn(server, user.email);
    const second = await signIn(server, user.email);
    const token = tokenOf(passwordResets.issue(user.email, server.clock.now).url);
    await passwordResets.reset(token, newPassword, server.clock.now);
    for (const session of [first, second]) t.equal((await server.request('GET', '/v1/user', { headers: session.headers() })).status, 401);
    await t.rejects(signIn(server, user.email, testPassword), 'the old password no longer works');
    await signIn(server, user.email, newPassword);
    await t.rejects(passwordResets.reset(token, 'yet-another-long-password', server.clock.now), linkRefused, 'reuse refused');
    await signIn(server, user.email, newPassword);
  });

  await t.test('expired links are refused: an invitation after 7 days, a reset after 1 hour', async (t) => {
    const invited = await invite('late@example.test');
    const user = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const resetToken = tokenOf(passwordResets.issue(user.email, server.clock.now).url);
    const at = (ms: number) => new Date(server.clock.now.getTime() + ms);
    t.ok(passwordResets.account(resetToken, at(3_600_000 - 1)), 'a reset link lives just under an hour');
    await t.rejects(passwordResets.reset(resetToken, newPassword, at(3_600_000)), linkRefused);
    const invitationToken = tokenOf(invited.invitation.url);
    t.ok(invitations.invitee(invitationToken, at(7 * 86_400_000 - 1)));
    await t.rejects(invitations.accept(invitationToken, { name: 'Late', password: newPassword }, at(7 * 86_400_000)), linkRefused);
    t.equal(statusOf(invited.user.id), 'invited');
    await signIn(server, user.email, testPassword);
  });

  await t.test("a link acts only for its own user and purpose: another user's link, an older link, the other kind of link are refused", async (t) => {
    const alice = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const bob = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const bobToken = tokenOf(passwordResets.issue(bob.email, server.clock.now).url);
    await passwordResets.reset(bobToken, newPassword, server.clock.now);
    await signIn(server, alice.email, testPassword);

    const older = tokenOf(passwordResets.issue(alice.email, server.clock.now).url);
    const newer = tokenOf(passwordResets.issue(alice.email, server.clock.now).url);
    await t.rejects(passwordResets.reset(older, newPassword, server.clock.now), linkRefused, 'a newer link replaces the older one');

    const invited = await invite('carol@example.test');
    const invitationToken = tokenOf(invited.invitation.url);
    await t.rejects(passwordResets.reset(invitationToken, newPassword, server.clock.now), linkRefused, 'an invitation is no reset link');
    await t.rejects(invitations.accept(newer, { name: 'Mallory', password: newPassword }, server.clock.now), linkRefused, 'a reset link is no invitation');

    // Carol is removed and someone else is invited under the same address: the first link must not let them in.
    server.services.accounts.users.remove(ownerActor, operatorOrigin(tenant.orgId), invited.user.id, server.clock.now);
    const reinvited = await invite('carol@example.test');
    await t.rejects(invitations.accept(invitationToken, { name: 'Mallory', password: newPassword }, server.clock.now), linkRefused, "the removed user's link");
    t.equal(statusOf(reinvited.user.id), 'invited');
    await passwordResets.reset(newer, newPassword, server.clock.now);
    await signIn(server, alice.email, newPassword);
  });

  await t.test('a reset is only for active users: invited and disabled ones get no link', async (t) => {
    const invited = await invite('not-yet@example.test');
    t.throws(() => passwordResets.issue('not-yet@example.test', server.clock.now), { name: 'NotFoundError' });
    t.throws(() => passwordResets.issue('nobody@example.test', server.clock.now), { name: 'NotFoundError' });
    const user = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    const token = tokenOf(passwordResets.issue(user.email, server.clock.now).url);
    server.services.accounts.users.disable(operatorOrigin(tenant.orgId), user.userId, server.clock.now);
    await t.rejects(passwordResets.reset(token, newPassword, server.clock.now), linkRefused, 'disabling cancels a pending reset');
    t.equal(statusOf(invited.user.id), 'invited');
  });

  await t.test('asking for a reset of an unknown email gives the same answer as for a known one, and writes nothing', async (t) => {
    const rows = () => server.db.prepare('SELECT count(*) FROM one_time_links').pluck().get();
    const before = rows();
    const unknown = passwordResets.request('nobody-here@example.test', '127.0.0.1', server.clock.now);
    const known = passwordResets.request(owner.email, '127.0.0.1', server.clock.now);
    t.same(known, unknown);
    await new Promise((resolve) => setImmediate(resolve));
    t.equal(rows(), before, 'without SMTP there is nobody to give a link to');
  });
});
