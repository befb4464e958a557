import t from 'tap';
import { cli } from '../../helpers/cli.js';
import { signIn } from '../../helpers/sign-in.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { startTestServer } from '../../helpers/test-server.js';

t.test('dbmon users reset-password EMAIL prints a one-hour reset link for an owner who lost the password', async (t) => {
  const stateDir = tempDir(t, 'dbmon-cli-reset-');
  const dir = ['--state-dir', stateDir];
  const now = new Date();
  const org = (await cli(['orgs', 'create', '--name', 'Acme', ...dir], { now })).stdout[0]!;
  await cli(['users', 'create', '--org', org, '--email', 'owner@example.test', '--role', 'owner', '--password-stdin', ...dir], { stdin: 'forgotten long password\n', now });

  const printed = await cli(['users', 'reset-password', 'Owner@Example.test', ...dir], { now, env: { DBMON_PUBLIC_URL: 'https://dbmon.example.test', DBMON_METRICS_TOKEN: 'a-long-enough-metrics-token' } });
  t.equal(printed.code, 0, printed.stderr.join('\n'));
  t.equal(printed.stdout.length, 1, 'the link alone on stdout');
  const link = /^https:\/\/dbmon\.example\.test\/password-reset\/([0-9A-Za-z]{43})$/.exec(printed.stdout[0]!);
  t.ok(link, printed.stdout.join('\n'));
  t.match(printed.stderr.join('\n'), /valid for 1 hour/);

  const server = await startTestServer({ stateDir, now });
  t.teardown(server.close);
  await server.services.accounts.passwordResets.reset(link![1]!, 'remembered-this-time', now);
  await signIn(server, 'owner@example.test', 'remembered-this-time');

  const unknown = await cli(['users', 'reset-password', 'nobody@example.test', ...dir], { now });
  t.equal(unknown.code, 1);
  t.match(unknown.stderr.join('\n'), /nobody@example\.test/);
  t.same(unknown.stdout, []);
  const usage = await cli(['users', 'reset-password', ...dir], { now });
  t.equal(usage.code, 2);
  t.match(usage.stderr.join('\n'), /reset-password needs exactly one EMAIL/);
});
