import { existsSync, readFileSync, writeFileSync } from 'node:fs';
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
    t.match(result.stderr.join('\n'), /needs exactly one FILE/);
  }
});

t.test('backup: a missing database or target directory is an error, not an empty copy', async (t) => {
  const stateDir = tempDir(t, 'dbmon-cli-backup-');
  const missing = await cli(['backup', join(stateDir, 'out.db'), '--state-dir', stateDir]);
  t.equal(missing.code, 66);
  t.match(missing.stderr[1], `dbmon: no database at ${join(stateDir, 'dbmon.db')}`);
  t.notOk(existsSync(join(stateDir, 'dbmon.db')), 'backup does not create a database');

  t.equal((await cli(['migrate', '--state-dir', stateDir])).code, 0);
  const noDir = await cli(['backup', join(stateDir, 'nowhere', 'out.db'), '--state-dir', stateDir]);
  t.equal(noDir.code, 73);
  t.match(noDir.stderr[1], /nowhere is not a directory/);

  const ok = await cli(['backup', join(stateDir, 'out.db'), '--state-dir', stateDir]);
  t.equal(ok.code, 0, ok.stderr.join('\n'));
  t.ok(existsSync(join(stateDir, 'out.db')));
  const restore = await cli(['restore', join(stateDir, 'out.db'), '--state-dir', stateDir]);
  t.equal(restore.code, 0, restore.stderr.join('\n'));
  t.match(restore.stdout[0], /^restored .*out\.db \(schema version \d+\) into .*dbmon\.db$/);
  const bad = await cli(['restore', join(stateDir, 'absent.db'), '--state-dir', stateDir]);
  t.equal(bad.code, 65);
  t.match(bad.stderr[1], /absent\.db: no such file/);
});

t.test('backup refuses to overwrite an existing file unless --force', async (t) => {
  const stateDir = tempDir(t, 'dbmon-cli-backup-');
  t.equal((await cli(['migrate', '--state-dir', stateDir])).code, 0);
  const target = join(stateDir, 'precious.db');
  writeFileSync(target, 'the only copy of something');

  const refused = await cli(['backup', target, '--state-dir', stateDir]);
  t.equal(refused.code, 73);
  t.match(refused.stderr.join('\n'), `${target} exists; add --force to replace it`);
  t.equal(readFileSync(target, 'utf8'), 'the only copy of something', 'the file is untouched');

  const forced = await cli(['backup', target, '--force', '--state-dir', stateDir]);
  t.equal(forced.code, 0, forced.stderr.join('\n'));
  t.equal(readFileSync(target).subarray(0, 15).toString(), 'SQLite format 3', 'replaced by the backup');
});

t.test('restoring a file that is not a dbmon database names that file', async (t) => {
  const stateDir = tempDir(t, 'dbmon-cli-backup-');
  const file = join(stateDir, 'notes.txt');
  writeFileSync(file, 'not a database, just some text '.repeat(200));
  const result = await cli(['restore', file, '--state-dir', stateDir]);
  t.equal(result.code, 65);
  t.match(result.stderr[1], new RegExp(`^dbmon: ${file}: `));
  t.notMatch(result.stderr.join('\n'), /restoring/);
});
