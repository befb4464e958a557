import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ConfigError } from '../../../common/config-loader.js';
import { loadServerConfig, smsSettingsOf, weakenedDefaults } from '../../../server/config.js';
import { createSmsSender } from '../../../server/sms/create-sms-sender.js';
import { SmsNotSentError } from '../../../server/sms/sms-sender.js';
import { twilioSmsSender } from '../../../server/sms/twilio-sms-sender.js';
import { webhookSmsSender } from '../../../server/sms/webhook-sms-sender.js';
import { signedHeaders } from '../../../server/webhooks/webhook-signature.js';
import { captureLogger } from '../../helpers/capture-logger.js';
import { startFakeTwilio } from '../../helpers/fake-twilio.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { startWebhookReceiver } from '../../helpers/webhook-receiver.js';

const message = { to: '+14155550100', body: 'Your dbmon code is 123456.' };

t.test('twilio: the Messages API request Twilio expects (form fields, Basic auth), at the configured base URL', async (t) => {
  const twilio = await startFakeTwilio();
  t.teardown(twilio.close);
  const settings = { accountSid: twilio.accountSid, authToken: twilio.authToken, from: twilio.from, baseUrl: twilio.url };
  await twilioSmsSender(settings).send(message);
  t.same(twilio.messages, [{ to: message.to, from: twilio.from, body: message.body }]);
  t.same(twilio.refusals, []);

  const wrongToken = twilioSmsSender({ ...settings, authToken: 'not-the-token' }).send(message);
  await t.rejects(wrongToken, SmsNotSentError);
  await wrongToken.catch((error: Error) => {
    t.match(error.message, /HTTP 401 code 20003: Authenticate/, "Twilio's refusal is named");
    t.notMatch(error.message, /not-the-token/, 'never the token');
  });
  await t.rejects(twilioSmsSender({ ...settings, from: '+15005550001' }).send(message), /code 21606/, 'a number not of the account');
  await t.rejects(twilioSmsSender(settings).send({ ...message, to: '4155550100' }), /code 21211/, 'To must be E.164');
  t.same(twilio.refusals.map((refusal) => refusal.code), [20003, 21606, 21211], 'the fake refused what Twilio refuses');
  twilio.outage = { status: 503, code: 20503, message: 'Service Unavailable' };
  await t.rejects(twilioSmsSender(settings).send(message), /HTTP 503/);
  await t.rejects(twilioSmsSender({ ...settings, baseUrl: 'http://127.0.0.1:9' }).send(message), /Twilio unreachable/);
});

t.test('webhook: a JSON body signed the Standard Webhooks way; a refusal is SmsNotSentError', async (t) => {
  const receiver = await startWebhookReceiver((_request, index) => ({ status: index === 0 ? 204 : 500 }));
  t.teardown(receiver.close);
  const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
  const sender = webhookSmsSender({ url: receiver.url, secret }, () => 1_760_000_000_000);
  await sender.send(message);
  const [received] = receiver.received;
  t.same(received?.json, { type: 'sms.send', to: message.to, body: message.body });
  const id = received!.headers['webhook-id'] as string;
  t.match(id, /^sms_/);
  t.same(signedHeaders(secret, id, 1_760_000_000, received!.body)['webhook-signature'], received!.headers['webhook-signature'], 'the signature checks out with the secret');
  await t.rejects(sender.send(message), /webhook HTTP 500/);
});

t.test('log: the message at warn (development); a failed send is logged without the text, a credential or the whole number', async (t) => {
  const log = captureLogger();
  await createSmsSender({ sender: 'log' }, log.logger).send(message);
  t.match(log.lines, [{ level: 40, to: message.to, text: message.body }]);

  const twilio = await startFakeTwilio();
  t.teardown(twilio.close);
  const failing = captureLogger();
  const sender = createSmsSender({ sender: 'twilio', twilio: { accountSid: twilio.accountSid, authToken: 'a-wrong-token', from: twilio.from, baseUrl: twilio.url } }, failing.logger);
  await t.rejects(sender.send(message), SmsNotSentError);
  t.match(failing.lines, [{ level: 40, sender: 'twilio', to_ending: '00', msg: 'SMS not sent', reason: /20003/ }]);
  t.notMatch(failing.text(), /a-wrong-token|123456|4155550100/);
});

t.test('config: sms.sender and its settings; the log sender refused with NODE_ENV=production unless allowed', async (t) => {
  t.equal(smsSettingsOf(loadServerConfig({}, {})), undefined, 'no sender by default: SMS is not offered');
  const production = { NODE_ENV: 'production', DBMON_SMS_SENDER: 'log' };
  t.throws(() => loadServerConfig({}, production), ConfigError);
  t.throws(() => loadServerConfig({}, production), /sms\.sender: log writes sign-in codes to the log/);
  const allowed = loadServerConfig({}, { ...production, DBMON_SMS_ALLOW_LOG_SENDER_IN_PRODUCTION: 'true' });
  t.same(smsSettingsOf(allowed), { sender: 'log' });
  t.ok(weakenedDefaults(allowed).some((weakened) => weakened.setting === 'sms.sender'), 'the start-up log warns');
  t.same(smsSettingsOf(loadServerConfig({}, { DBMON_SMS_SENDER: 'log' })), { sender: 'log' }, 'fine outside production');

  t.throws(() => loadServerConfig({}, { DBMON_SMS_SENDER: 'twilio' }), /sms\.twilio\.account_sid: required with sms\.sender twilio/);
  const dir = tempDir(t);
  writeFileSync(join(dir, 'token'), 'a-twilio-auth-token\n');
  const sid = `AC${'0'.repeat(32)}`;
  const twilio = loadServerConfig({}, { DBMON_SMS_SENDER: 'twilio', DBMON_SMS_TWILIO_ACCOUNT_SID: sid, DBMON_SMS_TWILIO_AUTH_TOKEN_FILE: join(dir, 'token'), DBMON_SMS_TWILIO_FROM: '+15005550006' });
  t.same(smsSettingsOf(twilio), { sender: 'twilio', twilio: { accountSid: sid, authToken: 'a-twilio-auth-token', from: '+15005550006', baseUrl: 'https://api.twilio.com' } }, 'the token from its _FILE');
  t.throws(() => loadServerConfig({}, { DBMON_SMS_SENDER: 'webhook', DBMON_SMS_WEBHOOK_URL: 'https://sms.example/hook' }), /sms\.webhook\.secret: required/);
  t.throws(() => loadServerConfig({}, { DBMON_SMS_SENDER: 'webhook', DBMON_SMS_WEBHOOK_URL: 'https://sms.example/hook', DBMON_SMS_WEBHOOK_SECRET: 'short' }), /sms\.webhook\.secret: must be whsec_/);
});
