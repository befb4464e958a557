import { join } from 'node:path';
import t from 'tap';
import { openDatabase, unsynced, type Db } from '../../../server/storage/open-database.js';
import { tempDir } from '../../helpers/temp-dir.js';

// An unsynced transaction commits without an fsync; every other commit on the connection keeps synchronous=FULL.

const full = 2;
const normal = 1;
const level = (db: Db) => db.pragma('synchronous', { simple: true }) as number;

t.test('unsynced runs its work at synchronous=NORMAL and puts FULL back, also when the work fails', (t) => {
  const db = openDatabase(join(tempDir(t, 'dbmon-unsynced-'), 'state.db'));
  t.teardown(() => db.close());
  db.exec('CREATE TABLE t (v INTEGER)');
  const transaction = <T>(work: () => T): T => db.transaction(work)();
  const interim = unsynced(db, transaction);
  t.equal(level(db), full);
  t.equal(
    interim(() => {
      db.prepare('INSERT INTO t VALUES (1)').run();
      return level(db);
    }),
    normal,
  );
  t.equal(level(db), full, 'restored after a commit');
  t.throws(() =>
    interim(() => {
      db.prepare('INSERT INTO t VALUES (2)').run();
      throw new Error('the work failed');
    }),
  );
  t.equal(level(db), full, 'restored after a rollback');
  t.same(db.prepare('SELECT v FROM t').pluck().all(), [1]);
  t.end();
});
