import t from 'tap';
import { cli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/temp-dir.js';

t.test('orgs, users and keys list, as a table and as JSON; keys create --json', async (t) => {
  const stateDir = tempDir(t, 'dbmon-cli-lists-');
  const dir = ['--state-dir', stateDir];
  const now = new Date('2030-01-01T00:00:00.000Z');
  const acme = (await cli(['orgs', 'create', '--name', 'Acme', '--plan', 'pro', ...dir], { now })).stdout[0]!;
  const other = (await cli(['orgs', 'create', '--name', 'Other', ...dir], { now: new Date(now.getTime() + 1000) })).stdout[0]!;
  const ada = (await cli(['users', 'create', '--org', acme, '--email', 'ada@example.test', '--role', 'admin', ...dir], { now })).stdout[0]!;
  await cli(['users', 'create', '--org', other, '--email', 'bob@example.test', '--role', 'viewer', '--password-stdin', ...dir], {
    stdin: 'a long enough password\n',
    now,
  });

  const created = await cli(['keys', 'create', '--org', acme, '--name', 'ci', '--service-account', 'bot', '--permission', 'read', '--json', ...dir], { now });
  t.equal(created.code, 0, created.stderr.join('\n'));
  t.equal(created.stdout.length, 1);
  const key = JSON.parse(created.stdout[0]!);
  t.match(key, { id: /^key_/, key: /^dbm_sak_[0-9A-Za-z]{38}$/, org_id: acme, name: 'ci', kind: 'service_account', permission: 'read', service_account: 'bot', revoked_at: null });
  t.equal(key.last4, key.key.slice(-4));
  const pat = await cli(['keys', 'create', '--org', acme, '--name', 'laptop', '--user', 'ada@example.test', '--permission', 'write', '--expires-in', '1d', ...dir], { now: new Date(now.getTime() + 1000) });
  t.match(pat.stdout, [/^dbm_pat_[0-9A-Za-z]{38}$/], 'without --json only the key');
  await cli(['keys', 'revoke', key.id, ...dir], { now });

  const orgs = await cli(['orgs', 'list', '--json', ...dir], { now });
  t.equal(orgs.code, 0);
  t.match(JSON.parse(orgs.stdout[0]!), [
    { id: acme, name: 'Acme', plan: 'pro' },
    { id: other, name: 'Other', plan: 'free' },
  ]);
  const orgTable = await cli(['orgs', 'list', ...dir], { now });
  t.match(orgTable.stdout[0], /^ID\s+NAME\s+PLAN\s+HOURLY LIMIT\s+CREATED$/);
  t.match(orgTable.stdout[1], new RegExp(`^${acme}\\s+Acme\\s+pro\\s+-\\s+2030-01-01`));
  t.equal(orgTable.stdout.length, 3);

  const users = JSON.parse((await cli(['users', 'list', '--json', ...dir])).stdout[0]!);
  t.equal(users.length, 2);
  t.match(users, [{ id: ada, org_id: acme, role: 'admin', has_password: false }, { org_id: other, role: 'viewer', has_password: true }].sort((a, b) => (a.org_id < b.org_id ? -1 : 1)));
  t.notOk(JSON.stringify(users).includes('argon2'), 'no password hash');
  const acmeUsers = await cli(['users', 'list', '--org', acme, ...dir]);
  t.equal(acmeUsers.stdout.length, 2, 'header and one user');
  t.match(acmeUsers.stdout[1], /ada@example\.test\s+ada\s+admin\s+no/);
  const unknownOrg = await cli(['users', 'list', '--org', 'org_nope', ...dir]);
  t.equal(unknownOrg.code, 1);
  t.match(unknownOrg.stderr.join('\n'), /org_nope/);

  const later = new Date(now.getTime() + 2 * 86_400_000);
  const keys = JSON.parse((await cli(['keys', 'list', '--org', acme, '--json', ...dir], { now: later })).stdout[0]!);
  t.match(keys, [
    { id: key.id, state: 'revoked', service_account: 'bot' },
    { name: 'laptop', state: 'expired', user_id: ada, kind: 'personal' },
  ]);
  t.notOk(JSON.stringify(keys).includes(key.key), 'never the key value');
  const keyTable = await cli(['keys', 'list', ...dir], { now });
  t.match(keyTable.stdout[0], /^ID\s+ORG\s+NAME\s+KIND\s+OWNER\s+PERMISSION\s+KEY\s+STATE\s+EXPIRES\s+LAST USED$/);
  t.match(keyTable.stdout[1], new RegExp(`^${key.id}\\s+${acme}\\s+ci\\s+service_account\\s+bot\\s+read\\s+dbm_sak_\\.\\.\\.${key.last4}\\s+revoked`));
  t.match(keyTable.stdout[2], /laptop\s+personal\s+usr_\S+\s+write\s+dbm_pat_\.\.\.\S{4}\s+active\s+2030-01-02/);
  t.equal((await cli(['keys', 'list', '--org', other, '--json', ...dir])).stdout[0], '[]');
});
