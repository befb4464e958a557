import t from 'tap';
import type { StatementTotals } from '../../../agent/collection/collector.js';
import { statementDeltas, statementStats } from '../../../agent/collection/statement-deltas.js';

const totals = (key: string, calls: number, totalMs: number, maxMs: number, queryId = key): StatementTotals => ({
  key,
  queryId,
  query: `SELECT ${key}`,
  calls,
  totalMs,
  sumSquaresMs2: null,
  maxMs,
  rows: calls,
});

t.test('deltas of entries seen before, new and reset', async (t) => {
  const before = [totals('a', 100, 50, 3), totals('b', 10, 10, 1), totals('c', 5000, 900, 9), totals('idle', 7, 7, 1)];
  const after = [totals('a', 150, 80, 3), totals('b', 10, 10, 1), totals('c', 40, 8, 2), totals('idle', 7, 7, 1), totals('new', 3, 6, 4)];
  t.same(statementDeltas(before, after), [
    { queryId: 'a', query: 'SELECT a', calls: 50, totalMs: 30, sumSquaresMs2: null, maxMs: null, rows: 50 },
    { queryId: 'c', query: 'SELECT c', calls: 40, totalMs: 8, sumSquaresMs2: null, maxMs: 2, rows: 40 },
    { queryId: 'new', query: 'SELECT new', calls: 3, totalMs: 6, sumSquaresMs2: null, maxMs: 4, rows: 3 },
  ]);
});

t.test('the interval max is known when the lifetime max rose', async (t) => {
  const [delta] = statementDeltas([totals('a', 1, 1, 1)], [totals('a', 2, 11, 10)]);
  t.equal(delta?.maxMs, 10);
});

t.test('statementStats merges entries of one query id, slowest first', async (t) => {
  const stats = statementStats([
    { queryId: 'q1', query: 'SELECT 1', calls: 2, totalMs: 4, sumSquaresMs2: null, maxMs: 3, rows: 2 },
    { queryId: 'q2', query: 'SELECT 2', calls: 1, totalMs: 9, sumSquaresMs2: null, maxMs: 9, rows: 1 },
    { queryId: 'q1', query: 'SELECT 1', calls: 3, totalMs: 6, sumSquaresMs2: null, maxMs: null, rows: 3 },
  ]);
  t.same(stats, [
    { query_id_source: 'q1', query: 'SELECT 1', calls: 5, total_time_ms: 10, max_time_ms: null, rows: 5 },
    { query_id_source: 'q2', query: 'SELECT 2', calls: 1, total_time_ms: 9, max_time_ms: 9, rows: 1 },
  ]);
});

t.test('statementStats keeps a snapshot bounded', async (t) => {
  const deltas = Array.from({ length: 1500 }, (_, i) => ({
    queryId: `q${i}`,
    query: i === 0 ? 'x'.repeat(50_000) : `SELECT ${i}`,
    calls: 1,
    totalMs: i,
    sumSquaresMs2: null,
    maxMs: null,
    rows: 0,
  }));
  const stats = statementStats(deltas);
  t.equal(stats.length, 1000, 'the 1000 statements with the most time');
  t.equal(stats[0]?.query_id_source, 'q1499');
  t.equal(stats.at(-1)?.query_id_source, 'q500');
  t.equal(statementStats(deltas.slice(0, 1))[0]?.query.length, 10_000, 'long texts are cut');
});
