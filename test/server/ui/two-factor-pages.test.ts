import t from 'tap';
import { operatorOrigin } from '../../../server/auth/audit/audit-origin.js';
import { startFakeTwilio } from '../../helpers/fake-twilio.js';
import { formField, PageClient } from '../../helpers/page-client.js';
import { createPasswordUser, signIn, testPassword, type SignedIn } from '../../helpers/sign-in.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';
import { enrollTotp, totpCode } from '../../helpers/two-factor.js';

t.test('two-factor pages over HTTP', async (t) => {
  const twilio = await startFakeTwilio();
  t.teardown(twilio.close);
  const server = await startTestServer({ now: new Date('2026-03-02T10:00:10Z'), sms: twilio.settings() });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now);
  let numbers = 0;
  const member = async () => {
    const user = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
    return { ...user, session: await signIn(server, user.email) };
  };
  const enrollSms = async (session: SignedIn) => {
    const phone = `+1415555${String(++numbers).padStart(4, '0')}`;
    await server.request('POST', '/v1/user/two-factor/sms', { headers: session.headers(), body: { phone } });
    const verified = await server.request('POST', '/v1/user/two-factor/sms/verify', { headers: session.headers(), body: { code: twilio.lastCode(phone) } });
    t.equal(verified.status, 200, verified.text);
  };
  /** The second-factor page a browser reaches after the right password. */
  const secondStepPage = async (email: string) => {
    const client = new PageClient(server.url);
    const form = await client.get('/login');
    const posted = await client.postForm('/login', { csrf_token: formField(form.text, 'csrf_token') ?? '', email, password: testPassword });
    t.equal(posted.location, '/login/two-factor');
    const page = await client.get('/login/two-factor');
    t.equal(page.status, 200);
    return page.text;
  };
  const totpField = /<label for="code">Code from your authenticator app<\/label>/;
  const smsOffer = /Send me a code/;
  const recoveryField = /<label for="recovery-code">Recovery code<\/label>/;

  await t.test('/login/two-factor offers only the methods the user has', async (t) => {
    const appOnly = await member();
    await enrollTotp(server, appOnly.session);
    const appPage = await secondStepPage(appOnly.email);
    t.match(appPage, totpField, 'an app: its code');
    t.notMatch(appPage, smsOffer, 'no phone: no text message offered');
    t.match(appPage, recoveryField, 'recovery codes: their field');

    const phoneOnly = await member();
    await enrollSms(phoneOnly.session);
    const phonePage = await secondStepPage(phoneOnly.email);
    t.notMatch(phonePage, totpField, 'no app: no field for its code');
    t.match(phonePage, smsOffer, 'a confirmed phone: a text message on request');
    t.notMatch(phonePage, /Text me a code instead/, 'the text message is the first way, not an alternative');
    t.match(phonePage, recoveryField);

    const both = await member();
    await enrollTotp(server, both.session);
    await enrollSms(both.session);
    const bothPage = await secondStepPage(both.email);
    t.match(bothPage, totpField);
    t.match(bothPage, /Text me a code instead/);
    t.match(bothPage, recoveryField);

    const pendingPhone = await member();
    await enrollTotp(server, pendingPhone.session);
    await server.request('POST', '/v1/user/two-factor/sms', { headers: pendingPhone.session.headers(), body: { phone: '+14155559999' } });
    t.notMatch(await secondStepPage(pendingPhone.email), smsOffer, 'a phone not yet confirmed is not offered');

    server.db.prepare('DELETE FROM recovery_codes WHERE user_id = ?').run(appOnly.userId);
    const spentPage = await secondStepPage(appOnly.email);
    t.notMatch(spentPage, recoveryField, 'every recovery code used: none asked for');
    t.match(spentPage, totpField);
  });

  /** A browser signed in with the password alone: its client, and where the sign-in sent it. */
  const pageSignIn = async (email: string) => {
    const client = new PageClient(server.url);
    const form = await client.get('/login');
    const posted = await client.postForm('/login', { csrf_token: formField(form.text, 'csrf_token') ?? '', email, password: testPassword });
    return { client, landing: posted.location };
  };

  await t.test("attack: the SMS setup forms do nothing without the session's CSRF token", async (t) => {
    const user = await member();
    const { client } = await pageSignIn(user.email);
    const sent = twilio.messages.length;
    const forged = await client.postForm('/account/two-factor/sms', { phone: '+14155550777' });
    t.equal(forged.status, 403);
    t.equal(twilio.messages.length, sent, 'nothing texted');
    const csrfToken = formField((await client.get('/account/two-factor')).text, 'csrf_token') ?? '';
    t.equal((await client.postForm('/account/two-factor/sms', { csrf_token: csrfToken, phone: '+14155550778' })).status, 200, 'with the token, a code is texted');
    t.equal((await client.postForm('/account/two-factor/sms/verify', { csrf_token: csrfToken, code: twilio.lastCode('+14155550778') })).status, 200);
    const removal = await client.postForm('/account/two-factor/sms/remove', { password: testPassword });
    t.equal(removal.status, 403);
    t.match((await client.get('/account/two-factor')).text, /Codes are texted to your number ending in/, 'the phone stays');
  });

  await t.test('an owner past the deadline: every page leads to enrollment, which works, and then the rest opens', async (t) => {
    const organization = createTenant(server.services, server.clock.now);
    const owner = await createPasswordUser(server.services, organization.orgId, 'owner', server.clock.now);
    server.services.accounts.organizationSettings.update(operatorOrigin(organization.orgId), { require_two_factor: true, two_factor_grace_period_days: 0 }, server.clock.now);
    const { client, landing } = await pageSignIn(owner.email);
    t.equal(landing, '/account/two-factor', 'sent to enrollment at sign-in');
    t.equal((await client.get('/')).location, '/account/two-factor', 'the start page leads there too');
    const overview = await client.get('/account/two-factor');
    t.equal(overview.status, 200);
    t.match(overview.text, 'Your organization requires two-factor authentication');
    t.notMatch(overview.text, 'Skip for now', 'no skipping past the deadline');
    const csrfToken = formField(overview.text, 'csrf_token') ?? '';
    const enrollment = await client.postForm('/account/two-factor/totp', { csrf_token: csrfToken });
    t.equal(enrollment.status, 200);
    const secret = /<code id="totp-secret">([^<]+)<\/code>/.exec(enrollment.text)?.[1]?.replace(/\s/g, '') ?? '';
    const confirmed = await client.postForm('/account/two-factor/totp/verify', { csrf_token: csrfToken, code: totpCode(secret, server.clock.now) });
    t.equal(confirmed.status, 200);
    t.match(confirmed.text, 'Your recovery codes');
    t.equal((await client.get('/')).status, 200, 'enrolled, the start page opens');
  });

  await t.test('a phone added beside the app on the page; removing the app needs the password, and the phone stays', async (t) => {
    const user = await member();
    const { client } = await pageSignIn(user.email);
    const csrfToken = formField((await client.get('/account/two-factor')).text, 'csrf_token') ?? '';
    const enrollment = await client.postForm('/account/two-factor/totp', { csrf_token: csrfToken });
    const secret = /<code id="totp-secret">([^<]+)<\/code>/.exec(enrollment.text)?.[1]?.replace(/\s/g, '') ?? '';
    t.equal((await client.postForm('/account/two-factor/totp/verify', { csrf_token: csrfToken, code: totpCode(secret, server.clock.now) })).status, 200);
    const phone = '+14155550779';
    t.equal((await client.postForm('/account/two-factor/sms', { csrf_token: csrfToken, phone })).status, 200);
    const added = await client.postForm('/account/two-factor/sms/verify', { csrf_token: csrfToken, code: twilio.lastCode(phone) });
    t.equal(added.location, '/account/two-factor?done=sms_added', 'no new recovery codes: those of the app stay');
    t.match((await client.get(added.location!)).text, 'Text message codes are turned on.');
    t.match((await client.get('/account/two-factor?done=constructor')).text, 'An authenticator app is set up.', 'an unknown notice is none');
    const refused = await client.postForm('/account/two-factor/totp/remove', { csrf_token: csrfToken, password: 'not-my-password-at-all' });
    t.equal(refused.status, 403);
    t.match(refused.text, 'The password is wrong.');
    t.match(refused.text, 'An authenticator app is set up.', 'the app stays');
    const removed = await client.postForm('/account/two-factor/totp/remove', { csrf_token: csrfToken, password: testPassword });
    t.equal(removed.location, '/account/two-factor?done=totp_removed');
    t.match((await client.get(removed.location!)).text, 'The authenticator app was removed.');
    const after = (await client.get(removed.location!)).text;
    t.match(after, 'Codes are texted to your number ending in 79', 'the phone stays');
    t.notMatch(after, 'An authenticator app is set up.');
  });
});
