import t from 'tap';
import { redactSecrets } from '../../../server/databases/redact-secrets.js';

t.test('masks secrets and connection strings, and leaves drivers\' messages readable', async (t) => {
  const cases: Array<[string, string, string | null]> = [
    ['connect ECONNREFUSED 127.0.0.1:5432', 'connect ECONNREFUSED 127.0.0.1:5432', null],
    ['password authentication failed for user "monitor"', 'password authentication failed for user "monitor"', null],
    ["Access denied for user 'monitor'@'10.0.0.2' (using password: YES)", "Access denied for user 'monitor'@'10.0.0.2' (using password: YES)", null],
    ['bad dsn mysql://monitor:hunter22@db:3306/app here', 'bad dsn [connection string [redacted]] here', null],
    ['postgres://u:p@h/d', '[connection string [redacted]]', null],
    ['fetch https://user:tok@example.com/x failed', 'fetch https://[redacted]@example.com/x failed', null],
    ['host=db password=hunter22 user=u', 'host=db password=[redacted] user=u', null],
    ['{"password":"hunter22","pwd": "x1"}', '{"password":"[redacted]","pwd": "[redacted]"}', null],
    ['token: abc, api_key=def; secret=ghi', 'token: [redacted], api_key=[redacted]; secret=[redacted]', null],
    ['the server echoed Zx9-stored twice: Zx9-stored', 'the server echoed [redacted] twice: [redacted]', 'Zx9-stored'],
  ];
  for (const [text, expected, secret] of cases) t.equal(redactSecrets(text, [secret]), expected, text);
});
