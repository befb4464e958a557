import { renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { checkpointInBackground } from '../../../server/storage/wal-checkpoint-job.js';
import { openDatabase, type Db } from '../../../server/storage/open-database.js';
import { tempDir } from '../../helpers/temp-dir.js';

const page = 4096;
/** Commits of about 100 pages each, more than SQLite's automatic checkpoint (1,000 pages) lets through. */
function writePages(db: Db, commits: number): void {
  const insert = db.prepare('INSERT INTO filler (data) VALUES (randomblob(?))');
  for (let commit = 0; commit < commits; commit++) db.transaction(() => insert.run(100 * page))();
}

function fillerDatabase(t: Test): { file: string; db: Db } {
  const file = join(tempDir(t, 'dbmon-checkpoint-'), 'test.db');
  const db = openDatabase(file);
  t.teardown(() => db.close());
  db.exec('CREATE TABLE filler (data BLOB)');
  return { file, db };
}

t.test('with checkpoints in the background, no commit copies the WAL into the database; a slice does', async (t) => {
  const { file, db } = fillerDatabase(t);
  const job = checkpointInBackground(db);
  t.teardown(() => job.stop());
  t.equal(job.name, 'wal_checkpoint');
  await job.slice(new Date(), 20);
  const before = statSync(file).size;

  writePages(db, 15);
  t.equal(statSync(file).size, before, 'the database file is untouched by 1,500 pages of commits');
  t.ok(statSync(`${file}-wal`).size > 1_500 * page, 'they are all in the WAL');

  t.equal(await job.slice(new Date(), 20), false, 'one checkpoint is the whole pass');
  t.ok(statSync(file).size > before + 1_500 * page, 'the slice copied them into the database');
  const walSize = statSync(`${file}-wal`).size;
  writePages(db, 5);
  t.equal(statSync(`${file}-wal`).size, walSize, 'the next commits write the WAL again from its start');
  t.equal(db.prepare('SELECT count(*) FROM filler').pluck().get(), 20);
});

t.test('the checkpoint runs in a worker thread: the event loop turns while it copies', async (t) => {
  const { file, db } = fillerDatabase(t);
  const job = checkpointInBackground(db);
  t.teardown(() => job.stop());
  await job.slice(new Date(), 20);
  writePages(db, 60);
  const sizeBefore = statSync(file).size;
  let turns = 0;
  const ticker = setInterval(() => turns++, 1);
  const started = performance.now();
  const checkpoint = job.slice(new Date(), 20);
  t.ok(checkpoint instanceof Promise, 'the slice hands the work over');
  await checkpoint;
  const elapsedMs = performance.now() - started;
  clearInterval(ticker);
  t.ok(statSync(file).size > sizeBefore + 6_000 * page, `6,000 pages copied in ${elapsedMs.toFixed(0)} ms`);
  // A checkpoint on the event loop's thread would let no timer run until it returned.
  t.ok(turns > 0, `the event loop turned ${turns} times meanwhile`);
});

t.test('a worker that fails fails its slice; the next slice starts another', async (t) => {
  const { file, db } = fillerDatabase(t);
  const job = checkpointInBackground(db);
  t.teardown(() => job.stop());
  writePages(db, 3);
  renameSync(file, `${file}.away`);
  await t.rejects(job.slice(new Date(), 20), { message: 'the WAL checkpoint worker failed', cause: { code: 'SQLITE_CANTOPEN' } }, 'no database where it was');
  renameSync(`${file}.away`, file);
  const sizeBefore = statSync(file).size;
  t.equal(await job.slice(new Date(), 20), false);
  t.ok(statSync(file).size > sizeBefore, 'a new worker checkpointed');
  await job.stop();
  await job.stop();
  t.equal(db.prepare('SELECT count(*) FROM filler').pluck().get(), 3, 'the server connection is untouched by the worker stopping');
});
