import t from 'tap';
import { startFakeTwilio } from '../../helpers/fake-twilio.js';
import { formField, PageClient } from '../../helpers/page-client.js';
import { createPasswordUser, signIn, testPassword, type SignedIn } from '../../helpers/sign-in.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';
import { enrollTotp } from '../../helpers/two-factor.js';

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
});
