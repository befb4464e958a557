import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { databaseFileName } from '../../../server/state-dir.js';
import { openDatabase, type Db } from '../../../server/storage/open-database.js';
import { fillEverySample } from '../../helpers/every-sample.js';
import { day, passEnded, preparedState, storeSamples } from '../../helpers/crash-state.js';
import { spawnProcess, spawnServer } from '../../helpers/spawn-server.js';

// The built server killed with SIGKILL in the middle of a WAL checkpoint (its background job):
// every committed sample is there once afterwards, and the next checkpoint finishes.

/**
 * Reads the WAL frames committed, and those a checkpoint has finished copying (the -shm header, native
 * order), through one descriptor held until teardown: closing any descriptor of the -shm drops this
 * process's POSIX locks on it, and the server, seeing no other connection, would then truncate the
 * -shm under this process's SQLite mapping (SIGBUS).
 */
function walProgressReader(t: Test, file: string): () => { committed: number; copied: number } {
  const fd = openSync(`${file}-shm`, 'r');
  t.teardown(() => closeSync(fd));
  const header = Buffer.alloc(100);
  return () => {
    readSync(fd, header, 0, header.length, 0);
    return { committed: header.readUInt32LE(16), copied: header.readUInt32LE(96) };
  };
}

/** Rows and sealed hours alike: the server's seal job may have run before the kill. */
const count = (db: Db) => {
  fillEverySample(db);
  return db.prepare('SELECT count(*) FROM every_sample').pluck().get() as number;
};

t.test('SIGKILL during a WAL checkpoint: every committed sample once, and the next checkpoint ends', async (t) => {
  const { stateDir, db, databaseIds } = preparedState(t, 20);
  const file = join(stateDir, databaseFileName);
  const walProgress = walProgressReader(t, file);
  t.teardown(() => db.close());
  // About 55 MB in the WAL, which this connection never checkpoints: the server's first checkpoint copies
  // them, long enough to be caught in the middle. Folded already as far as the rollups know, so that
  // the server's first passes before the checkpoint are short.
  db.pragma('wal_autocheckpoint = 0');
  storeSamples(db, databaseIds, Math.floor((Date.now() - 4 * day) / day) * day, 3 * 8_640);
  db.exec('UPDATE rollup_watermark SET last_sample_id = (SELECT max(seq) FROM samples_pending)');
  const total = count(db);
  const written = walProgress().committed;
  const states: string[] = [];
  let midCheckpoint = false;
  // Watched from the moment the process starts (the checkpoint may begin before it listens), and killed
  // as soon as the database file grows while the WAL is not yet all copied: the checkpoint is mid-way.
  for (let attempt = 1; attempt <= 3 && !midCheckpoint; attempt++) {
    const sizeBefore = statSync(file).size;
    const server = spawnProcess(t, { DBMON_STATE_DIR: stateDir, DBMON_PORT: '0', DBMON_AGENT_EMBEDDED: 'false' });
    const deadline = Date.now() + 60_000;
    const copying = () => statSync(file).size > sizeBefore && walProgress().copied < written;
    const over = () => walProgress().copied >= written || server.child.exitCode !== null || Date.now() > deadline;
    while (!copying() && !over()) await new Promise((resolve) => setTimeout(resolve, 1));
    server.child.kill('SIGKILL');
    await server.exited;
    const { committed, copied } = walProgress();
    const grown = statSync(file).size - sizeBefore;
    states.push(`attempt ${attempt}: database file +${grown} B, ${copied} of ${committed} frames copied`);
    t.equal(count(db), total, `attempt ${attempt}: every sample once`);
    // Still the WAL written here (not one restarted after a finished checkpoint), partly copied.
    midCheckpoint = grown > 0 && committed >= written && copied < written;
    if (copied >= written || committed < written) break;
  }
  t.ok(midCheckpoint, `a kill landed after a checkpoint had begun copying and before it ended (${states.join('; ')})`);

  const server = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
  await passEnded(server, 'wal_checkpoint');
  t.equal((await server.stop()).code, 0);
  const after = openDatabase(file);
  t.teardown(() => after.close());
  t.equal(count(after), total, 'no sample lost');
  t.equal(after.pragma('integrity_check', { simple: true }), 'ok');
});
