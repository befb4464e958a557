import t from 'tap';
import type { Assignment } from '../../../agent/assignments/assignment.js';
import type { DatabaseCollection } from '../../../agent/collection/database-collection.js';
import { DatabasePool } from '../../../agent/collection/database-pool.js';
import { createLogger } from '../../../common/logger.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';

function assignment(id: string, overrides: Partial<Assignment> = {}, port = 5432): Assignment {
  return {
    id,
    name: id,
    type: 'postgresql',
    interval_seconds: 60,
    connection: { host: '127.0.0.1', port, database: 'test', username: 'dbmon', password: null, ssl: false },
    ...overrides,
  };
}

/** Collections that record what happened to them; a cycle can be held open. */
function fakeCollections() {
  const created: { assignment: Assignment; timeoutMs: number; closed: boolean; release?: () => void }[] = [];
  let hold = false;
  const createCollection = (assignment: Assignment, timeoutMs: number): DatabaseCollection => {
    const record: (typeof created)[number] = { assignment, timeoutMs, closed: false };
    created.push(record);
    return {
      async collect(now) {
        if (hold) await new Promise<void>((resolve) => (record.release = resolve));
        return makeSnapshot(now);
      },
      async close() {
        record.closed = true;
      },
    };
  };
  return { created, createCollection, holdCycles: (value: boolean) => void (hold = value) };
}

t.test('one collection per database; kept, rebuilt or closed as assignments change', async (t) => {
  const fakes = fakeCollections();
  const pool = new DatabasePool({ createCollection: fakes.createCollection, logger: createLogger('silent'), deadlineMs: (ms) => Math.min(ms * 0.8, 30_000) });
  t.teardown(() => pool.close());

  const jobs = pool.update([assignment('db_a'), assignment('db_b', { interval_seconds: 10 })]);
  t.same(jobs.map((job) => [job.id, job.intervalMs]), [['db_a', 60_000], ['db_b', 10_000]]);
  t.same(fakes.created.map((c) => [c.assignment.id, c.timeoutMs]), [['db_a', 30_000], ['db_b', 8000]], 'deadline per interval');

  pool.update([assignment('db_a', { name: 'renamed' }), assignment('db_b', { interval_seconds: 10 })]);
  t.equal(fakes.created.length, 2, 'a rename keeps the connection');

  pool.update([assignment('db_a', {}, 5433), assignment('db_b', { interval_seconds: 10 })]);
  t.equal(fakes.created.length, 3, 'a new connection is a new collection');
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(fakes.created[0]!.closed, true, 'the old one is closed');

  pool.update([assignment('db_a', {}, 5433)]);
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(fakes.created[1]!.closed, true, 'an unassigned database is closed');
  t.ok(await pool.collect('db_a', new Date(), AbortSignal.timeout(10_000)), 'collects');
  t.equal(await pool.collect('db_b', new Date(), AbortSignal.timeout(10_000)), undefined, 'an unassigned database collects nothing');
});

t.test('a collection replaced in mid-cycle is closed after the cycle, whose snapshot is discarded', async (t) => {
  const fakes = fakeCollections();
  const pool = new DatabasePool({ createCollection: fakes.createCollection, logger: createLogger('silent'), deadlineMs: (ms) => ms });
  t.teardown(() => pool.close());
  pool.update([assignment('db_a')]);
  fakes.holdCycles(true);
  const cycle = pool.collect('db_a', new Date(), AbortSignal.timeout(10_000));
  await new Promise((resolve) => setImmediate(resolve));
  pool.update([assignment('db_a', {}, 5499)]);
  t.equal(fakes.created[0]!.closed, false, 'not closed under a running cycle');
  fakes.created[0]!.release!();
  t.equal(await cycle, undefined, 'the snapshot of the old connection is not kept');
  t.equal(fakes.created[0]!.closed, true, 'closed once the cycle ended');
  await pool.close();
  t.equal(fakes.created[1]!.closed, true, 'close() closes the rest');
});
