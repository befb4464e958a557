import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { packageVersion } from '../../../common/package-version.js';
import { cli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/temp-dir.js';

t.test('dbmon --version', async (t) => {
  const result = await cli(['--version']);
  t.same(result, { code: 0, stdout: [`dbmon ${packageVersion()}`], stderr: [] });
  t.match(packageVersion(), /^\d+\.\d+\.\d+/);
});

t.test('backup and restore take exactly one FILE', async (t) => {
  const stateDir = tempDir(t, 'dbmon-cli-backup-');
  for (const argv of [['backup'], ['restore'], ['backup', 'a', 'b']]) {
    const result = await cli([...argv, '--state-dir', stateDir]);
    t.equal(result.code, 2, argv.join(' '));
    t.match(result.stderr[0], /needs exactly one FILE/);
  }
});

t.test('backup: a missing database or target directory is an error, not an empty copy', async (t) => {
  const stateDir = tempDir(t, 'dbmon-cli-backup-');
  const missing = await cli(['backup', join(stateDir, 'out.db'), '--state-dir', stateDir]);
  t.equal(missing.code, 66);
  t.same(missing.stderr, [`dbmon: no database at ${join(stateDir, 'dbmon.db')}`]);
  t.notOk(existsSync(join(stateDir, 'dbmon.db')), 'backup does not create a database');

  t.equal((await cli(['migrate', '--state-dir', stateDir])).code, 0);
  const noDir = await cli(['backup', join(stateDir, 'nowhere', 'out.db'), '--state-dir', stateDir]);
  t.equal(noDir.code, 73);
  t.match(noDir.stderr[0], /nowhere is not a directory/);

  const ok = await cli(['backup', join(stateDir, 'out.db'), '--state-dir', stateDir]);
  t.equal(ok.code, 0, ok.stderr.join('\n'));
  t.ok(existsSync(join(stateDir, 'out.db')));
  const restore = await cli(['restore', join(stateDir, 'out.db'), '--state-dir', stateDir]);
  t.equal(restore.code, 0, restore.stderr.join('\n'));
  t.match(restore.stdout[0], /^restored .*out\.db \(schema version \d+\) into .*dbmon\.db$/);
  const bad = await cli(['restore', join(stateDir, 'absent.db'), '--state-dir', stateDir]);
  t.equal(bad.code, 65);
  t.match(bad.stderr[0], /absent\.db: no such file/);
});
