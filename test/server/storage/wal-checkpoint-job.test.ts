import { statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { checkpointInBackground } from '../../../server/storage/wal-checkpoint-job.js';
import { openDatabase, type Db } from '../../../server/storage/open-database.js';
import { tempDir } from '../../helpers/temp-dir.js';

const page = 4096;
/** Commits of about 100 pages each, more than SQLite's automatic checkpoint (1,000 pages) lets through. */
function writePages(db: Db, commits: number): void {
  const insert = db.prepare('INSERT INTO filler (data) VALUES (randomblob(?))');
  for (let commit = 0; commit < commits; commit++) db.transaction(() => insert.run(100 * page))();
}

t.test('with checkpoints in the background, no commit copies the WAL into the database; a slice does', async (t) => {
  const file = join(tempDir(t, 'dbmon-checkpoint-'), 'test.db');
  const db = openDatabase(file);
  t.teardown(() => db.close());
  db.exec('CREATE TABLE filler (data BLOB)');
  const job = checkpointInBackground(db);
  t.equal(job.name, 'wal_checkpoint');
  job.slice(new Date(), 20);
  const before = statSync(file).size;

  writePages(db, 15);
  t.equal(statSync(file).size, before, 'the database file is untouched by 1,500 pages of commits');
  t.ok(statSync(`${file}-wal`).size > 1_500 * page, 'they are all in the WAL');

  t.equal(job.slice(new Date(), 20), false, 'one checkpoint is the whole pass');
  t.ok(statSync(file).size > before + 1_500 * page, 'the slice copied them into the database');
  const walSize = statSync(`${file}-wal`).size;
  writePages(db, 5);
  t.equal(statSync(`${file}-wal`).size, walSize, 'the next commits write the WAL again from its start');
  t.equal(db.prepare('SELECT count(*) FROM filler').pluck().get(), 20);
});
