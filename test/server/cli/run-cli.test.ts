import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import t from 'tap';
import { databaseFileName } from '../../../server/state-dir.js';
import { cli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { startTestServer } from '../../helpers/test-server.js';

const repoRoot = new URL('../../../', import.meta.url);

function row<T>(stateDir: string, sql: string, ...params: unknown[]): T {
  const db = new Database(join(stateDir, databaseFileName), { readonly: true });
  try {
    return db.prepare(sql).get(...params) as T;
  } finally {
    db.close();
  }
}

t.test('orgs, users and keys', async (t) => {
  const stateDir = tempDir(t, 'dbmon-cli-');
  const dir = ['--state-dir', stateDir];

  const org = await cli(['orgs', 'create', '--name', 'Acme Corp', '--plan', 'pro', ...dir]);
  t.equal(org.code, 0, org.stderr.join('\n'));
  t.equal(org.stdout.length, 1);
  const orgId = org.stdout[0]!;
  t.match(orgId, /^org_[0-9A-Za-z]{20,}$/);
  t.same(org.stderr, [`dbmon: state directory ${stateDir}`], 'names the state directory, nothing else');
  t.match(row(stateDir, 'SELECT * FROM organizations WHERE id = ?', orgId), { name: 'Acme Corp', slug: 'acme-corp', plan: 'pro', custom_hourly_limit: null });

  const defaultPlan = await cli(['orgs', 'create', '--name', 'Free One', '--hourly-limit', '250', ...dir]);
  t.equal(defaultPlan.code, 0);
  t.match(row(stateDir, 'SELECT * FROM organizations WHERE id = ?', defaultPlan.stdout[0]), { plan: 'free', custom_hourly_limit: 250 });

  const duplicate = await cli(['orgs', 'create', '--name', 'Acme Corp', ...dir]);
  t.equal(duplicate.code, 1, 'a taken organization name fails');
  t.match(duplicate.stderr.join('\n'), /Acme Corp/);

  const admin = await cli(['users', 'create', '--org', orgId, '--email', 'ada@example.test', '--role', 'admin', ...dir]);
  t.equal(admin.code, 0, admin.stderr.join('\n'));
  t.match(admin.stdout, [/^usr_[0-9A-Za-z]{20,}$/]);
  t.equal(admin.stdout.length, 1);
  t.match(row(stateDir, 'SELECT * FROM users WHERE id = ?', admin.stdout[0]), { org_id: orgId, email: 'ada@example.test', role: 'admin', password_hash: null });

  const password = 'correct horse battery staple';
  const withPassword = await cli(['users', 'create', '--org', orgId, '--email', 'bob@example.test', '--role', 'member', '--password-stdin', ...dir], {
    stdin: `${password}\n`,
  });
  t.equal(withPassword.code, 0, withPassword.stderr.join('\n'));
  const stored = row<{ password_hash: string }>(stateDir, 'SELECT password_hash FROM users WHERE id = ?', withPassword.stdout[0]);
  t.match(stored.password_hash, /^\$argon2id\$/);
  t.notOk(stored.password_hash.includes(password));
  const argon2 = (await import('argon2')).default;
  t.ok(await argon2.verify(stored.password_hash, password), 'the hash verifies the password (newline trimmed)');
  t.notOk([...withPassword.stdout, ...withPassword.stderr].join('\n').includes(password), 'the password is not echoed');

  const shortPassword = await cli(['users', 'create', '--org', orgId, '--email', 'c@example.test', '--role', 'member', '--password-stdin', ...dir], { stdin: 'short' });
  t.equal(shortPassword.code, 2);
  t.match(shortPassword.stderr.join('\n'), /--password/);

  const noOrg = await cli(['users', 'create', '--org', 'org_missing', '--email', 'd@example.test', '--role', 'member', ...dir]);
  t.equal(noOrg.code, 1, 'an unknown organization fails');
  t.match(noOrg.stderr.join('\n'), /org_missing/);

  const now = new Date();
  const sak = await cli(
    ['keys', 'create', '--org', orgId, '--name', 'ci', '--service-account', 'bot', '--permission', 'read', '--expires-in', '90d', ...dir],
    { now },
  );
  t.equal(sak.code, 0, sak.stderr.join('\n'));
  t.equal(sak.stdout.length, 1, 'one line');
  t.same(sak.stderr, [`dbmon: state directory ${stateDir}`]);
  const serviceKey = sak.stdout[0]!;
  t.match(serviceKey, /^dbm_sak_[0-9A-Za-z]{38}$/, 'only the key value');
  const sakRow = row<{ id: string; expires_at: string; permission: string; kind: string; scopes: string }>(
    stateDir,
    "SELECT * FROM api_keys WHERE org_id = ? AND kind = 'service_account'",
    orgId,
  );
  t.equal(Date.parse(sakRow.expires_at), now.getTime() + 90 * 86_400_000, 'expires 90 days from now');
  t.equal(sakRow.permission, 'read');
  t.equal(sakRow.kind, 'service_account');
  t.notOk(JSON.parse(sakRow.scopes).includes('agent'), 'default scopes leave out agent');

  const pat = await cli(['keys', 'create', '--org', orgId, '--name', 'laptop', '--user', 'ada@example.test', '--permission', 'write', '--scopes', 'databases,api_keys', ...dir]);
  t.equal(pat.code, 0, pat.stderr.join('\n'));
  t.equal(pat.stdout.length, 1);
  const personalKey = pat.stdout[0]!;
  t.match(personalKey, /^dbm_pat_[0-9A-Za-z]{38}$/);
  const patRow = row<{ id: string; user_id: string; scopes: string; expires_at: string | null }>(
    stateDir,
    "SELECT * FROM api_keys WHERE org_id = ? AND kind = 'personal'",
    orgId,
  );
  t.equal(patRow.user_id, admin.stdout[0]);
  t.same(JSON.parse(patRow.scopes), ['databases', 'api_keys']);
  t.equal(patRow.expires_at, null, 'no --expires-in, no expiry');

  const unknownUser = await cli(['keys', 'create', '--org', orgId, '--name', 'x', '--user', 'nobody@example.test', '--permission', 'read', ...dir]);
  t.equal(unknownUser.code, 1);
  t.match(unknownUser.stderr.join('\n'), /nobody@example\.test/);

  await t.test('printed keys authenticate against a server on the same state directory', async (t) => {
    const server = await startTestServer({ stateDir });
    t.teardown(server.close);
    const read = await server.request('GET', '/v1/databases', { key: serviceKey });
    t.equal(read.status, 200);
    const write = await server.request('POST', '/v1/databases', {
      key: serviceKey,
      body: { name: 'x', type: 'mysql', connection: { host: 'h', database: 'd', username: 'u' } },
    });
    t.equal(write.status, 403, 'the read key cannot write');
    const created = await server.request('POST', '/v1/databases', {
      key: personalKey,
      body: { name: 'from-pat', type: 'mysql', connection: { host: 'h', database: 'd', username: 'u' } },
    });
    t.equal(created.status, 201, 'the admin personal key writes');
    t.equal(created.headers.get('x-ratelimit-limit'), '1000', 'the pro plan limit applies');
    const listed = await server.request('GET', '/v1/databases', { key: serviceKey });
    t.same(listed.body.data.map((record: { name: string }) => record.name), ['from-pat'], 'both keys see the same organization');

    const revoked = await cli(['keys', 'revoke', sakRow.id, ...dir]);
    t.equal(revoked.code, 0, revoked.stderr.join('\n'));
    t.match(revoked.stdout.join('\n'), sakRow.id);
    const refused = await server.request('GET', '/v1/databases', { key: serviceKey });
    t.equal(refused.status, 401);
    t.equal(refused.body.error.code, 'revoked_api_key');
    t.equal((await server.request('GET', '/v1/databases', { key: personalKey })).status, 200, 'other keys keep working');

    const twice = await cli(['keys', 'revoke', sakRow.id, ...dir]);
    t.equal(twice.code, 1, 'revoking twice fails');
    const unknown = await cli(['keys', 'revoke', 'key_doesnotexist', ...dir]);
    t.equal(unknown.code, 1);
    const noId = await cli(['keys', 'revoke', ...dir]);
    t.equal(noId.code, 2);
  });
});

t.test('usage errors exit 2 and name the flag', async (t) => {
  const stateDir = tempDir(t, 'dbmon-cli-');
  const dir = ['--state-dir', stateDir];
  const org = (await cli(['orgs', 'create', '--name', 'usage', ...dir])).stdout[0]!;
  const keyArgs = ['keys', 'create', '--org', org, '--name', 'k', '--permission', 'read'];
  const cases: Array<[string[], RegExp]> = [
    [['orgs', 'create', ...dir], /--name/],
    [['orgs', 'create', '--name', 'x', '--plan', 'platinum', ...dir], /--plan/],
    [['orgs', 'create', '--name', 'x', '--hourly-limit', 'lots', ...dir], /--hourly-limit/],
    [['users', 'create', '--org', org, '--email', 'not-an-email', '--role', 'admin', ...dir], /--email/],
    [['users', 'create', '--org', org, '--email', 'a@b.test', '--role', 'king', ...dir], /--role/],
    [['users', 'create', '--org', org, '--email', 'a@b.test', ...dir], /--role/],
    [[...keyArgs, '--user', 'a@b.test', '--service-account', 'bot', ...dir], /--service-account[\s\S]*--user|--user[\s\S]*--service-account/],
    [[...keyArgs, ...dir], /--service-account|--user/],
    [[...keyArgs, '--service-account', 'bot', '--expires-in', 'forever', ...dir], /--expires-in/],
    [[...keyArgs, '--service-account', 'bot', '--expires-in', '0d', ...dir], /--expires-in/],
    [['keys', 'create', '--org', org, '--name', 'k', '--permission', 'admin', '--service-account', 'bot', ...dir], /--permission/],
    [[...keyArgs, '--service-account', 'bot', '--scopes', 'databases,everything', ...dir], /--scopes/],
    [['orgs', 'create', '--name', 'x', '--colour', 'blue', ...dir], /--colour/],
    [['orgs', 'explode', ...dir], /orgs explode/],
  ];
  for (const [argv, message] of cases) {
    const run = await cli(argv);
    t.equal(run.code, 2, argv.join(' '));
    t.match(run.stderr.join('\n'), message, argv.join(' '));
    t.same(run.stdout, [], `${argv.join(' ')} prints nothing on stdout`);
  }
  const keys = row<{ n: number }>(stateDir, 'SELECT count(*) AS n FROM api_keys');
  t.equal(keys.n, 0, 'no usage error left a key behind');
  const orgs = row<{ n: number }>(stateDir, 'SELECT count(*) AS n FROM organizations');
  t.equal(orgs.n, 1, 'no usage error left an organization behind');

  const bare = await cli([]);
  t.equal(bare.code, 2, 'no command is a usage error');
  t.match(bare.stdout.join('\n'), /Usage: dbmon/);
  const help = await cli(['--help']);
  t.equal(help.code, 0);
  t.match(help.stdout.join('\n'), /keys revoke/);
});

t.test('config validate and migrate', async (t) => {
  const stateDir = tempDir(t, 'dbmon-cli-');
  const good = await cli(['config', 'validate', '--state-dir', stateDir], { env: { DBMON_PORT: '8080' } });
  t.equal(good.code, 0);
  t.match(good.stdout.join('\n'), /valid/);
  t.match(good.stdout.join('\n'), stateDir);

  const bad = await cli(['config', 'validate', '--state-dir', stateDir], { env: { DBMON_PORT: 'notaport' } });
  t.equal(bad.code, 78);
  t.match(bad.stderr.join('\n'), /server\.port/);
  t.same(bad.stdout, []);

  const badLevel = await cli(['config', 'validate', '--state-dir', stateDir], { env: { DBMON_LOG_LEVEL: 'loud' } });
  t.equal(badLevel.code, 78);
  t.match(badLevel.stderr.join('\n'), /log\.level/);

  const missingFile = await cli(['config', 'validate', '--config', join(stateDir, 'absent.yaml')]);
  t.equal(missingFile.code, 78);
  t.match(missingFile.stderr.join('\n'), /config/);

  const badForOtherCommands = await cli(['orgs', 'create', '--name', 'x', '--state-dir', stateDir], { env: { DBMON_PORT: 'notaport' } });
  t.equal(badForOtherCommands.code, 78, 'every command validates the configuration first');

  const migrateDir = join(stateDir, 'fresh');
  const first = await cli(['migrate', '--state-dir', migrateDir]);
  t.equal(first.code, 0);
  t.match(first.stdout.join('\n'), /applied .*1-identity-and-databases/);
  const second = await cli(['migrate', '--state-dir', migrateDir]);
  t.equal(second.code, 0);
  t.same(second.stdout, ['schema is up to date']);

  const viaEnv = await cli(['orgs', 'create', '--name', 'env-dir'], { env: { DBMON_STATE_DIR: migrateDir } });
  t.equal(viaEnv.code, 0, 'DBMON_STATE_DIR picks the state directory');
  t.equal(row<{ id: string }>(migrateDir, 'SELECT id FROM organizations WHERE name = ?', 'env-dir').id, viaEnv.stdout[0]);
});

t.test('the compiled binary', async (t) => {
  const stateDir = tempDir(t, 'dbmon-cli-');
  const run = promisify(execFile);
  const cliPath = new URL('dist/server/cli.js', repoRoot).pathname;
  const env = { PATH: process.env.PATH ?? '' };
  const created = await run(process.execPath, [cliPath, 'orgs', 'create', '--name', 'spawned', '--plan', 'enterprise', '--state-dir', stateDir], { env });
  t.match(created.stdout, /^org_[0-9A-Za-z]{20,}\n$/, 'prints the id and a newline');
  t.equal(created.stderr, `dbmon: state directory ${stateDir}\n`);
  const orgId = created.stdout.trim();
  t.equal(row<{ plan: string }>(stateDir, 'SELECT plan FROM organizations WHERE id = ?', orgId).plan, 'enterprise');

  const key = await run(process.execPath, [cliPath, 'keys', 'create', '--org', orgId, '--name', 'k', '--permission', 'write', '--service-account', 'ops', '--state-dir', stateDir], {
    env,
  });
  t.match(key.stdout, /^dbm_sak_[0-9A-Za-z]{38}\n$/);

  const password = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [cliPath, 'users', 'create', '--org', orgId, '--email', 'piped@example.test', '--role', 'viewer', '--password-stdin', '--state-dir', stateDir],
      { env },
      (error, stdout) => (error && typeof error.code !== 'number' ? reject(error) : resolve({ code: child.exitCode, stdout })),
    );
    child.stdin!.end('a password read from stdin\n');
  });
  t.equal(password.code, 0, 'the binary reads the password from stdin');
  t.match(password.stdout, /^usr_/);

  const failure = await run(process.execPath, [cliPath, 'orgs', 'create', '--state-dir', stateDir], { env }).then(
    () => undefined,
    (error: { code: number; stderr: string }) => error,
  );
  t.equal(failure?.code, 2, 'a usage error exits 2');
  t.match(failure?.stderr, /--name is required/);

  const config = await run(process.execPath, [cliPath, 'config', 'validate', '--state-dir', stateDir], { env: { ...env, DBMON_PORT: 'notaport' } }).then(
    () => undefined,
    (error: { code: number; stderr: string }) => error,
  );
  t.equal(config?.code, 78);
  t.match(config?.stderr, /server\.port/);
});
