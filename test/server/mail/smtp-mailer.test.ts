import t from 'tap';
import { smtpTransportOptions } from '../../../server/mail/smtp-mailer.js';

t.test('beyond loopback, smtp:// must upgrade to TLS before anything (login, links) is sent', async (t) => {
  t.match(smtpTransportOptions('smtp://mailer:pw@mail.example.com'), { host: 'mail.example.com', port: 587, secure: false, requireTLS: true });
  t.match(smtpTransportOptions('smtp://10.0.0.5:25'), { port: 25, requireTLS: true }, 'private addresses too');
  t.match(smtpTransportOptions('smtps://mail.example.com'), { port: 465, secure: true, requireTLS: false }, 'smtps:// is TLS from the start');
  for (const local of ['smtp://127.0.0.1:2525', 'smtp://localhost:25', 'smtp://[::1]:25']) {
    t.match(smtpTransportOptions(local), { secure: false, requireTLS: false }, `${local}: a relay on this host`);
  }
  t.equal(smtpTransportOptions('smtp://[::1]:25').host, '::1');
});

t.test('the login comes from the URL, percent-decoded; without one there is none', async (t) => {
  t.same(smtpTransportOptions('smtps://dbmon%40example.com:p%40ss%3Aword@mail.example.com').auth, { user: 'dbmon@example.com', pass: 'p@ss:word' });
  t.equal(smtpTransportOptions('smtp://127.0.0.1:25').auth, undefined);
});
