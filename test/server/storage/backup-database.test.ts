import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import t from 'tap';
import type { BatchAck } from '../../../common/agent-protocol/sample-batch.js';
import { databaseFileName } from '../../../server/state-dir.js';
import { backupDatabase } from '../../../server/storage/backup-database.js';
import { migrate } from '../../../server/storage/migrate.js';
import { openDatabase } from '../../../server/storage/open-database.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { cli } from '../../helpers/cli.js';
import { childEnv, cliEntry, nodeArgs, spawnServer } from '../../helpers/spawn-server.js';
import { tempDir } from '../../helpers/temp-dir.js';

const run = promisify(execFile);

function sampleTimestamps(file: string): Set<number> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return new Set(db.prepare('SELECT ts FROM samples').pluck().all() as number[]);
  } finally {
    db.close();
  }
}

function integrity(file: string): string[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('PRAGMA integrity_check').pluck().all() as string[];
  } finally {
    db.close();
  }
}

t.test('a backup taken while the server ingests restores every sample acknowledged before it began', async (t) => {
  const stateDir = tempDir(t, 'dbmon-backup-state-');
  const elsewhere = tempDir(t, 'dbmon-backup-out-');
  const server = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
  const admin = JSON.parse(readFileSync(join(stateDir, 'initial-admin.json'), 'utf8')) as { org_id: string; api_key: string };

  const agentKey = await cli([
    'keys', 'create', '--org', admin.org_id, '--name', 'agent', '--permission', 'write',
    '--service-account', 'agent-host', '--scopes', 'agent', '--state-dir', stateDir,
  ]);
  t.equal(agentKey.code, 0, agentKey.stderr.join('\n'));
  const agentHeaders = { authorization: `Bearer ${agentKey.stdout[0]}`, 'content-type': 'application/json', 'x-dbmon-agent-hostname': 'db-host' };
  const assignments = await fetch(`${server.url}/v1/agent/assignments`, { headers: agentHeaders });
  t.equal(assignments.status, 200);
  const agentId = ((await assignments.json()) as { agent_id: string }).agent_id;
  const created = await fetch(`${server.url}/v1/databases`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin.api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'orders', type: 'postgresql', agent_id: agentId, connection: { host: 'h', database: 'd', username: 'u' } }),
  });
  t.equal(created.status, 201);
  const databaseId = ((await created.json()) as { id: string }).id;

  // Four agents' worth of concurrent batches, one sample each, each acknowledged only once stored (fsynced).
  const base = Date.now() - 3_600_000;
  const acked: number[] = [];
  let next = 0;
  let ingesting = true;
  const worker = async () => {
    while (ingesting) {
      const index = next++;
      const ts = base + index * 1000;
      const response = await fetch(`${server.url}/v1/agent/samples`, {
        method: 'POST',
        headers: agentHeaders,
        body: JSON.stringify({
          batch_id: `batch-${String(index).padStart(16, '0')}`,
          samples: [{ database_id: databaseId, snapshot: makeSnapshot(new Date(ts)) }],
        }),
      });
      const body = (await response.json()) as BatchAck;
      if (response.status !== 200 || body.stored !== 1) throw new Error(`ingest failed: ${response.status} ${JSON.stringify(body)}`);
      acked.push(ts);
    }
  };
  const workers = Array.from({ length: 4 }, worker);
  while (acked.length < 100) await new Promise((resolve) => setTimeout(resolve, 10));

  const backupFile = join(elsewhere, 'dbmon-backup.db');
  const ackedBefore = [...acked];
  // The real CLI, in its own process, with its own connection: the server keeps writing meanwhile.
  const backup = await run(process.execPath, [...nodeArgs(cliEntry), 'backup', backupFile, '--state-dir', stateDir], { env: childEnv({}) });
  const ackedDuring = acked.length - ackedBefore.length;
  while (acked.length < ackedBefore.length + ackedDuring + 50) await new Promise((resolve) => setTimeout(resolve, 10));
  ingesting = false;
  await Promise.all(workers);

  t.match(backup.stdout, /^backed up .*dbmon\.db \(schema version \d+, \d+ bytes\) to .*dbmon-backup\.db\n$/);
  t.ok(ackedDuring > 0, `ingest went on while the backup ran (${ackedDuring} batches acknowledged meanwhile)`);
  t.equal(statSync(backupFile).mode & 0o777, 0o600, 'the backup is owner-only');
  t.notOk(existsSync(`${backupFile}-wal`), 'the backup is one self-contained file');
  t.same(integrity(backupFile), ['ok']);
  const inBackup = sampleTimestamps(backupFile);
  t.same(ackedBefore.filter((ts) => !inBackup.has(ts)), [], `all ${ackedBefore.length} samples acknowledged before the backup are in it`);
  t.ok(inBackup.size < acked.length, 'and samples stored after it are not (the server went on)');

  const restoredDir = tempDir(t, 'dbmon-backup-restored-');
  const restored = await cli(['restore', backupFile, '--state-dir', restoredDir]);
  t.equal(restored.code, 0, restored.stderr.join('\n'));
  const restoredFile = join(restoredDir, databaseFileName);
  t.same(integrity(restoredFile), ['ok'], 'the restored database passes PRAGMA integrity_check');
  const afterRestore = sampleTimestamps(restoredFile);
  t.same(ackedBefore.filter((ts) => !afterRestore.has(ts)), [], 'and holds every sample acknowledged before the backup began');
  t.equal(afterRestore.size, inBackup.size);

  await t.test('restore refuses while the server runs, and works once it stopped', async (t) => {
    const refused = await cli(['restore', backupFile, '--state-dir', stateDir]);
    t.equal(refused.code, 75);
    t.match(refused.stderr.join('\n'), /server\.lock is held by a running dbmon server/);
    t.notOk(existsSync(join(stateDir, `${databaseFileName}.before-restore`)), 'nothing was touched');

    const liveCount = sampleTimestamps(join(stateDir, databaseFileName)).size;
    t.equal(liveCount, acked.length, 'every acknowledged sample is in the live database');
    const exit = await server.stop();
    t.equal(exit.code, 0);

    const restoredLive = await cli(['restore', backupFile, '--state-dir', stateDir]);
    t.equal(restoredLive.code, 0, restoredLive.stderr.join('\n'));
    t.match(restoredLive.stdout.join('\n'), /kept as .*dbmon\.db\.before-restore/);
    t.equal(sampleTimestamps(join(stateDir, `${databaseFileName}.before-restore`)).size, liveCount, 'the replaced database is kept whole');
    t.equal(sampleTimestamps(join(stateDir, databaseFileName)).size, inBackup.size);

    const again = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
    const health = await fetch(`${again.url}/healthz`);
    t.equal(health.status, 200, 'the server starts on the restored database');
    const list = await fetch(`${again.url}/v1/databases`, { headers: { authorization: `Bearer ${admin.api_key}` } });
    t.equal(list.status, 200, 'with its keys');
    t.equal((await again.stop()).code, 0);
  });
});

t.test('backupDatabase: one step under a steady writer, no partial file left on failure', async (t) => {
  const dir = tempDir(t, 'dbmon-backup-unit-');
  const db = openDatabase(join(dir, 'source.db'));
  t.teardown(() => db.close());
  migrate(db);
  const writer = openDatabase(join(dir, 'source.db'));
  t.teardown(() => writer.close());
  writer.exec('CREATE TABLE filler (x BLOB)');
  const insert = writer.prepare('INSERT INTO filler VALUES (randomblob(4096))');
  for (let i = 0; i < 500; i++) insert.run();
  // A write between every step would restart a stepwise backup forever; a one-step backup is not affected.
  const timer = setInterval(() => insert.run(), 0);
  t.teardown(() => clearInterval(timer));
  const result = await backupDatabase(db, join(dir, 'copy.db'));
  clearInterval(timer);
  t.ok(result.schemaVersion > 0);
  t.ok(result.bytes > 500 * 4096);
  t.same(integrity(join(dir, 'copy.db')), ['ok']);

  await t.rejects(backupDatabase(db, join(dir, 'missing-dir', 'copy.db')), { code: 'ENOENT' });
  const plain = new Database(join(dir, 'plain.db'));
  t.teardown(() => plain.close());
  plain.exec('CREATE TABLE x (y)');
  await t.rejects(backupDatabase(plain, join(dir, 'not-dbmon.db')), /not a dbmon database/, 'the copy is checked before it is kept');
  t.notOk(existsSync(join(dir, 'not-dbmon.db')));
  t.same(
    (await import('node:fs')).readdirSync(dir).filter((name) => name.includes('partial')),
    [],
    'no partial file is left behind',
  );
});
