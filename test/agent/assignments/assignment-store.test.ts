import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { Assignments } from '../../../common/agent-protocol/assignments.js';
import { AssignmentStore } from '../../../agent/assignments/assignment-store.js';
import { captureLogger } from '../../helpers/capture-logger.js';
import { tempDir } from '../../helpers/temp-dir.js';

const password = 'pa55-w0rd-never-in-clear';
const assignments: Assignments = {
  agent_id: 'agent_1',
  databases: [
    {
      id: 'db_orders',
      name: 'orders',
      type: 'postgresql',
      interval_seconds: 60,
      connection: { host: 'db.internal', port: 5432, database: 'orders', username: 'monitor', password, ssl: true },
    },
  ],
};
const agentKey = 'dbm_sak_0123456789abcdefghijABCDEFGHIJKL000000';

t.test('saved assignments come back on the next start, sealed on disk', async (t) => {
  const file = join(tempDir(t), 'assignments.sealed');
  const log = captureLogger();
  t.equal(new AssignmentStore(file, agentKey, log.logger).load(), undefined, 'nothing saved yet');
  new AssignmentStore(file, agentKey, log.logger).save(assignments);

  t.same(new AssignmentStore(file, agentKey, log.logger).load(), assignments);
  t.equal(statSync(file).mode & 0o777, 0o600, 'only the agent can read it');
  const bytes = readFileSync(file);
  t.notOk(bytes.includes(password), 'the password is not in the file');
  t.notOk(bytes.includes('db.internal'), 'nor anything else in clear');
  t.same(log.lines, [], 'no warning on the way');
});

t.test('an unchanged list is not written again', async (t) => {
  const file = join(tempDir(t), 'assignments.sealed');
  const store = new AssignmentStore(file, agentKey, captureLogger().logger);
  store.save(assignments);
  const first = statSync(file).ino;
  store.save(structuredClone(assignments));
  t.equal(statSync(file).ino, first, 'same file');
  store.save({ ...assignments, databases: [] });
  t.not(statSync(file).ino, first, 'a change replaces it');
  t.same(new AssignmentStore(file, agentKey, captureLogger().logger).load(), { ...assignments, databases: [] });
});

t.test('a file that cannot be read is ignored with a warning that quotes nothing from it', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'assignments.sealed');
  new AssignmentStore(file, agentKey, captureLogger().logger).save(assignments);

  const otherKey = captureLogger();
  t.equal(new AssignmentStore(file, `${agentKey.slice(0, -1)}1`, otherKey.logger).load(), undefined, 'another agent key');
  t.match(otherKey.lines, [{ level: 40, msg: 'ignoring the saved assignments', reason: /does not decrypt/ }]);

  const damaged = readFileSync(file);
  damaged[damaged.length - 1]! ^= 0xff;
  writeFileSync(file, damaged);
  const tampered = captureLogger();
  t.equal(new AssignmentStore(file, agentKey, tampered.logger).load(), undefined, 'a damaged file');
  t.match(tampered.lines, [{ msg: 'ignoring the saved assignments' }]);

  new AssignmentStore(file, agentKey, captureLogger().logger).save({ agent_id: 'agent_1', databases: [{ id: 'not-a-database', password }] } as never);
  const foreign = captureLogger();
  t.equal(new AssignmentStore(file, agentKey, foreign.logger).load(), undefined, 'content that is not assignments');
  t.match(foreign.lines, [{ msg: 'ignoring the saved assignments', reason: 'it is not a list of assignments' }]);

  for (const log of [otherKey, tampered, foreign]) {
    t.notOk(log.text().includes(password));
    t.notOk(log.text().includes(agentKey));
  }
});

t.test('a symlink planted at the temporary path is never followed', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'assignments.sealed');
  const victim = join(dir, 'victim');
  writeFileSync(victim, 'untouched');
  symlinkSync(victim, `${file}.tmp`);
  new AssignmentStore(file, agentKey, captureLogger().logger).save(assignments);

  t.equal(readFileSync(victim, 'utf8'), 'untouched', 'the link target is not written');
  t.notOk(lstatSync(file).isSymbolicLink(), 'the sealed file is a file of its own');
  t.equal(statSync(file).mode & 0o777, 0o600);
  t.same(new AssignmentStore(file, agentKey, captureLogger().logger).load(), assignments);
  t.notOk(existsSync(`${file}.tmp`), 'no temporary file is left');
});

t.test('a temporary file left by a crash is removed first, not reused with its mode', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'assignments.sealed');
  writeFileSync(`${file}.tmp`, 'half-written', { mode: 0o644 });
  new AssignmentStore(file, agentKey, captureLogger().logger).save(assignments);
  t.equal(statSync(file).mode & 0o777, 0o600, 'the leftover mode 0644 is not kept');
  t.same(new AssignmentStore(file, agentKey, captureLogger().logger).load(), assignments);
});

t.test('a directory at the temporary path is neither removed nor written into', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'assignments.sealed');
  mkdirSync(`${file}.tmp`);
  t.throws(() => new AssignmentStore(file, agentKey, captureLogger().logger).save(assignments), { code: /EEXIST|EISDIR|EPERM/ });
  t.notOk(existsSync(file), 'nothing was written');
  t.ok(statSync(`${file}.tmp`).isDirectory());
});
