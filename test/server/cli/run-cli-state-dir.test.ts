import { execFile } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { cli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/temp-dir.js';

const cliPath = new URL('../../../dist/server/cli.js', import.meta.url).pathname;

t.test('commands that read refuse to create a state directory', async (t) => {
  const parent = tempDir(t, 'dbmon-cli-state-');
  const missing = join(parent, 'not-there');
  for (const argv of [['orgs', 'list'], ['users', 'list'], ['keys', 'list'], ['keys', 'revoke', 'key_x'], ['backup', join(parent, 'b.db')], ['users', 'create', '--org', 'org_x', '--email', 'a@b.test', '--role', 'admin']]) {
    const run = await cli([...argv, '--state-dir', missing]);
    t.equal(run.code, 66, argv.join(' '));
    t.same(run.stderr[0], `dbmon: state directory ${missing}`, 'names the state directory it works on');
    t.match(run.stderr[1], `dbmon: no database at ${join(missing, 'dbmon.db')}`);
    t.match(run.stderr[1], /does not create one/);
    t.equal(run.stderr.length, 2, 'one line for the error');
    t.notOk(existsSync(missing), `${argv.join(' ')} created nothing`);
  }
  const created = await cli(['orgs', 'create', '--name', 'first', '--state-dir', missing]);
  t.equal(created.code, 0, 'orgs create starts a state directory');
  t.same(created.stderr, [`dbmon: state directory ${missing}`]);
  t.equal((await cli(['orgs', 'list', '--state-dir', missing])).code, 0, 'then reading it works');
});

t.test('the state directory comes from the same layers as the server', async (t) => {
  const dir = tempDir(t, 'dbmon-cli-state-');
  const fromYaml = join(dir, 'from-yaml');
  const fromEnv = join(dir, 'from-env');
  const yaml = join(dir, 'server.yaml');
  writeFileSync(yaml, `state_dir: ${fromYaml}\n`);

  const viaConfigFlag = await cli(['orgs', 'create', '--name', 'y', '--config', yaml]);
  t.equal(viaConfigFlag.code, 0, viaConfigFlag.stderr.join('\n'));
  t.same(viaConfigFlag.stderr, [`dbmon: state directory ${fromYaml}`], '--config FILE');
  const viaConfigEnv = await cli(['orgs', 'list', '--json'], { env: { DBMON_CONFIG: yaml } });
  t.same(viaConfigEnv.stderr, [`dbmon: state directory ${fromYaml}`], 'DBMON_CONFIG');
  t.same(JSON.parse(viaConfigEnv.stdout[0]!).map((o: { name: string }) => o.name), ['y']);
  const envOverYaml = await cli(['orgs', 'create', '--name', 'e'], { env: { DBMON_CONFIG: yaml, DBMON_STATE_DIR: fromEnv } });
  t.same(envOverYaml.stderr, [`dbmon: state directory ${fromEnv}`], 'DBMON_STATE_DIR over the file');
  const flagOverEnv = await cli(['orgs', 'list', '--state-dir', fromYaml], { env: { DBMON_STATE_DIR: fromEnv } });
  t.same(flagOverEnv.stderr, [`dbmon: state directory ${fromYaml}`], '--state-dir over the environment');
});

t.test('the compiled binary does not create ./data for a read command', async (t) => {
  const cwd = tempDir(t, 'dbmon-cli-cwd-');
  const failure = await promisify(execFile)(process.execPath, [cliPath, 'keys', 'list'], { cwd, env: { PATH: process.env.PATH ?? '' } }).then(
    () => undefined,
    (error: { code: number; stderr: string }) => error,
  );
  t.equal(failure?.code, 66);
  t.match(failure?.stderr, `dbmon: state directory ${join(cwd, 'data')}\n`, 'the default is ./data, as for the server');
  t.same(readdirSync(cwd), [], 'nothing created');
});
