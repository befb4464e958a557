import { execFile } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { spawnServer } from '../helpers/spawn-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const execFileAsync = promisify(execFile);
const installScript = new URL('../../scripts/install.sh', import.meta.url).pathname;
const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(command: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, { env: { PATH: process.env.PATH ?? '', ...env }, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: Number(failed.code), stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const install = (args: string[]) => run('bash', [installScript, ...args]);

t.test('install into a throwaway root, run the installed server, upgrade in place, uninstall', async (t) => {
  const root = tempDir(t, 'dbmon-install-root-');
  const prefix = '/srv/dbmon';
  const program = join(root, prefix);
  const started = Date.now();
  const first = await install(['--root', root, '--prefix', prefix]);
  t.equal(first.code, 0, first.stderr);
  t.comment(`first install took ${Date.now() - started} ms`);

  await t.test('what is installed where', async (t) => {
    for (const file of ['dist/server/main.js', 'dist/server/cli.js', 'dist/web/manifest.json', 'package.json', 'package-lock.json', 'node_modules/better-sqlite3/package.json', 'bin/dbmon', '.dbmon-install']) {
      t.ok(existsSync(join(program, file)), `${prefix}/${file}`);
    }
    t.notOk(existsSync(join(program, 'node_modules/typescript')), 'no development dependencies');
    t.notOk(existsSync(join(program, 'node_modules/tap')));
    t.ok(existsSync(join(program, 'dist/server/storage/migrations')), 'migrations are part of the program');

    const unit = readFileSync(join(root, 'etc/systemd/system/dbmon-server.service'), 'utf8');
    t.match(unit, new RegExp(`^ExecStart=/\\S*node ${prefix}/dist/server/main\\.js --config %E/dbmon/server\\.yaml$`, 'm'), 'the prefix is substituted');
    t.notMatch(unit, /\/opt\/dbmon/, 'everywhere');
    const verify = await run('systemd-analyze', ['verify', join(root, 'etc/systemd/system/dbmon-server.service')]);
    t.same({ code: verify.code, output: verify.stdout + verify.stderr }, { code: 0, output: '' }, 'the installed unit verifies (its node exists)');

    const config = readFileSync(join(root, 'etc/dbmon/server.yaml'), 'utf8');
    t.match(config, /^state_dir: \/var\/lib\/dbmon/m);
    t.match(config, /^secret_key_file: \/etc\/dbmon\/secret-key/m);
    const key = join(root, 'etc/dbmon/secret-key');
    t.equal(statSync(key).mode & 0o777, 0o600, 'the secret key is root-only');
    t.match(readFileSync(key, 'utf8'), /^[0-9a-f]{64}\n$/);
    t.equal(readlinkSync(join(root, 'usr/local/bin/dbmon')), `${prefix}/bin/dbmon`);
    t.match(readFileSync(join(program, 'bin/dbmon'), 'utf8'), new RegExp(`exec "\\S+node" "${prefix}/dist/server/cli\\.js" "\\$@"`));
    const agentFlags = /^#!.*\snode (.+)$/m.exec(readFileSync(join(program, 'dist/agent/main.js'), 'utf8'))![1]!;
    t.match(readFileSync(join(program, 'bin/dbmon-agent'), 'utf8'), `exec "${process.execPath}" ${agentFlags} "${prefix}/dist/agent/main.js" "$@"`, "the agent's wrapper passes node the flags of its #! line");

    t.match(first.stdout, /\/var\/lib\/dbmon\/initial-admin\.json/, 'the next steps say where the initial credentials will be');
    t.match(first.stdout, /systemctl enable --now dbmon-server/);
    t.match(first.stdout, /no daemon-reload/, 'systemctl is not called for a throwaway root');
  });

  // Start the installed program the way the unit does: --config (DBMON_CONFIG) and the state directory,
  // with the secret key handed over as a systemd credential (the YAML's secret_key_file is not read).
  const stateDir = join(root, 'var/lib/dbmon');
  const credentials = join(root, 'run/credentials/dbmon-server.service');
  mkdirSync(credentials, { recursive: true });
  copyFileSync(join(root, 'etc/dbmon/secret-key'), join(credentials, 'secret-key'));
  const env = { DBMON_CONFIG: join(root, 'etc/dbmon/server.yaml'), DBMON_STATE_DIR: stateDir, CREDENTIALS_DIRECTORY: credentials };
  const server = await spawnServer(t, env, join(program, 'dist/server/main.js'));

  await t.test('the installed server answers /healthz', async (t) => {
    const health = await fetch(`${server.url}/healthz`);
    t.equal(health.status, 200);
    t.ok(existsSync(join(stateDir, 'initial-admin.json')), 'initial credentials where the install said');
    t.notOk(existsSync(join(stateDir, 'secret.key')), 'the key came from the credential: none generated');
    const versionRun = await run(process.execPath, [join(program, 'dist/server/main.js'), '--version']);
    t.equal(versionRun.stdout, `dbmon-server ${version}\n`);
    // The wrapper in bin/ points at the real prefix, which a throwaway root does not have: call what it calls.
    const cliVersion = await run(process.execPath, [join(program, 'dist/server/cli.js'), '--version']);
    t.equal(cliVersion.stdout, `dbmon ${version}\n`);
  });

  await t.test('the installed CLI backs up while the server runs, and will not restore under it', async (t) => {
    const backup = join(root, 'backup.db');
    const cliEnv = { DBMON_CONFIG: join(root, 'etc/dbmon/server.yaml'), DBMON_STATE_DIR: stateDir, CREDENTIALS_DIRECTORY: credentials };
    const cli = join(program, 'dist/server/cli.js');
    const made = await run(process.execPath, [cli, 'backup', backup], cliEnv);
    t.equal(made.code, 0, made.stderr);
    t.ok(existsSync(backup));
    const refused = await run(process.execPath, [cli, 'restore', backup], cliEnv);
    t.equal(refused.code, 75);
    t.match(refused.stderr, /server\.lock is held by a running dbmon server/);
  });

  await t.test('a second install keeps the edited configuration and upgrades the program in place', async (t) => {
    appendFileSync(join(root, 'etc/dbmon/server.yaml'), '# edited by the operator\n');
    const key = readFileSync(join(root, 'etc/dbmon/secret-key'), 'utf8');
    writeFileSync(join(program, 'dist/stale-file-from-an-old-release.js'), '');
    const again = await install(['--root', root, '--prefix', prefix]);
    t.equal(again.code, 0, again.stderr);
    t.match(again.stdout, /kept .*server\.yaml/);
    t.match(readFileSync(join(root, 'etc/dbmon/server.yaml'), 'utf8'), /# edited by the operator\n$/, 'the edit is still there');
    t.equal(readFileSync(join(root, 'etc/dbmon/secret-key'), 'utf8'), key, 'the secret key is kept');
    t.notOk(existsSync(join(program, 'dist/stale-file-from-an-old-release.js')), 'the program is replaced, not merged');
    t.ok(existsSync(join(program, 'node_modules/better-sqlite3/package.json')));
    const health = await fetch(`${server.url}/healthz`);
    t.equal(health.status, 200, 'the running server is not disturbed');
  });

  t.equal((await server.stop()).code, 0);

  await t.test('--uninstall removes the program and units, keeps config and data; --purge removes them', async (t) => {
    const removed = await install(['--root', root, '--prefix', prefix, '--uninstall']);
    t.equal(removed.code, 0, removed.stderr);
    t.notOk(existsSync(program), 'program gone');
    t.notOk(existsSync(join(root, 'etc/systemd/system/dbmon-server.service')), 'unit gone');
    t.throws(() => lstatSync(join(root, 'usr/local/bin/dbmon')), 'command link gone');
    t.ok(existsSync(join(root, 'etc/dbmon/server.yaml')), 'config kept');
    t.ok(existsSync(join(root, 'etc/dbmon/secret-key')), 'secret key kept');
    t.ok(existsSync(join(stateDir, 'dbmon.db')), 'data kept');
    t.ok(existsSync(join(stateDir, 'initial-admin.json')));

    const twice = await install(['--root', root, '--prefix', prefix, '--uninstall']);
    t.equal(twice.code, 0, 'uninstalling again is harmless');

    const purged = await install(['--root', root, '--prefix', prefix, '--uninstall', '--purge']);
    t.equal(purged.code, 0, purged.stderr);
    t.notOk(existsSync(join(root, 'etc/dbmon')), 'config purged');
    t.notOk(existsSync(stateDir), 'data purged');
  });
});

t.test('refusals: bad arguments, and a prefix it did not install', async (t) => {
  const root = tempDir(t, 'dbmon-install-root-');
  for (const [args, message] of [
    [['--purge'], /--purge goes with --uninstall/],
    [['--prefix', 'relative/dir'], /must be an absolute path/],
    [['--prefix', '/usr'], /system directory/],
    [['--bogus'], /unknown argument: --bogus/],
  ] as const) {
    const result = await install(['--root', root, ...args]);
    t.equal(result.code, 1, args.join(' '));
    t.match(result.stderr, message);
  }
  mkdirSync(join(root, 'opt/other'), { recursive: true });
  writeFileSync(join(root, 'opt/other/precious'), 'not ours');
  const clobber = await install(['--root', root, '--prefix', '/opt/other']);
  t.equal(clobber.code, 1);
  t.match(clobber.stderr, /was not installed by this script/);
  const remove = await install(['--root', root, '--prefix', '/opt/other', '--uninstall']);
  t.equal(remove.code, 1);
  t.ok(existsSync(join(root, 'opt/other/precious')), 'a directory it did not install is never removed');
});
