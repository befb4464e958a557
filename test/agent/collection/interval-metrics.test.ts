import t from 'tap';
import type { Readings, StatementTotals } from '../../../agent/collection/collector.js';
import { intervalMetrics } from '../../../agent/collection/interval-metrics.js';

const statement = (key: string, calls: number, meanMs: number, stddevMs: number): StatementTotals => ({
  key,
  queryId: key,
  query: key,
  calls,
  totalMs: calls * meanMs,
  sumSquaresMs2: calls * (stddevMs ** 2 + meanMs ** 2),
  maxMs: null,
  rows: 0,
});

const at = (seconds: number, readings: Readings) => ({ atMs: seconds * 1000, readings });

t.test('the first cycle has no rates or latencies', async (t) => {
  const metrics = intervalMetrics(undefined, at(0, { transactions: 10, statements: [statement('a', 5, 1, 0)] }));
  t.same(metrics.throughput, { queries_per_second: null, transactions_per_second: null });
  t.equal(metrics.latency.source, null);
  t.match(metrics.latency.note, /two cycles/);
  t.equal(metrics.statements, undefined);
  t.equal(metrics.cpuUsage, null);
});

t.test('rates, exact average and estimated percentiles from statement deltas', async (t) => {
  const before = at(0, {
    uptimeSeconds: 1000,
    transactions: 100,
    statements: [statement('fast', 1000, 0.1, 0.05), statement('slow', 10, 50, 1)],
    cpu: { busy: 100, total: 1000 },
  });
  // Within the interval: 970 fast calls at 0.1 ms, 30 slow at 50 ms.
  const after = at(10, {
    uptimeSeconds: 1010,
    transactions: 600,
    statements: [statement('fast', 1970, 0.1, 0.05), statement('slow', 40, 50, 1)],
    cpu: { busy: 350, total: 2000 },
  });
  const metrics = intervalMetrics(before, after);
  t.equal(metrics.throughput.transactions_per_second, 50);
  t.equal(metrics.throughput.queries_per_second, 100, 'sum of calls over the interval');
  t.equal(metrics.cpuUsage, 25);
  t.equal(metrics.latency.source, 'estimate');
  const { avg_query_time_ms: avg, p95_query_time_ms: p95, p99_query_time_ms: p99 } = metrics.latency;
  t.ok(Math.abs((avg ?? NaN) - (970 * 0.1 + 30 * 50) / 1000) < 1e-9, `avg ${avg}`);
  t.ok((p95 ?? NaN) >= (avg ?? NaN), 'p95 >= avg');
  t.ok((p99 ?? NaN) >= (p95 ?? NaN), 'p99 >= p95');
  t.ok((p99 ?? NaN) > 45 && (p99 ?? NaN) < 55, `p99 ${p99} in the slow group`);
  t.same(
    metrics.statements?.map((s) => [s.query_id_source, s.calls]),
    [['slow', 30], ['fast', 970]],
  );
});

t.test('a heavy tail: p95 is raised to the mean, and p99 with it', async (t) => {
  const before = at(0, { statements: [statement('fast', 0, 0.01, 0), statement('rare', 0, 1000, 0)] });
  const after = at(10, { statements: [statement('fast', 99, 0.01, 0), statement('rare', 1, 1000, 0)] });
  const { latency } = intervalMetrics(before, after);
  const avg = (99 * 0.01 + 1000) / 100;
  t.ok(Math.abs((latency.avg_query_time_ms ?? NaN) - avg) < 1e-9);
  t.equal(latency.p95_query_time_ms, latency.avg_query_time_ms, 'the computed p95 (0.01 ms) lies below the mean');
  t.ok((latency.p99_query_time_ms ?? NaN) >= (latency.p95_query_time_ms ?? NaN));
});

t.test('no traffic: rates 0, latencies null, and a note that says why', async (t) => {
  const readings = { transactions: 5, statements: [statement('a', 5, 1, 0)] };
  const metrics = intervalMetrics(at(0, readings), at(10, readings));
  t.same(metrics.throughput, { queries_per_second: 0, transactions_per_second: 0 });
  t.same(metrics.latency, {
    avg_query_time_ms: null,
    p95_query_time_ms: null,
    p99_query_time_ms: null,
    source: null,
    note: 'no statement ran in the interval',
  });
  t.same(metrics.statements, []);
});

t.test("without a latency, the statistics' own note says why; with one, there is no note", async (t) => {
  const why = 'pg_stat_statements has no statements for this database yet';
  t.equal(intervalMetrics(undefined, at(0, { statements: [] }), why).latency.note, why, 'first cycle');
  t.equal(intervalMetrics(at(0, { statements: [] }), at(10, { statements: [] }), why).latency.note, why);
  t.equal(intervalMetrics(at(0, {}), at(10, {}), 'not installed').latency.note, 'not installed');
  t.match(intervalMetrics(at(0, {}), at(10, {})).latency.note, /no statement statistics/);
  const measured = intervalMetrics(at(0, { statements: [statement('a', 5, 1, 0)] }), at(10, { statements: [statement('a', 6, 1, 0)] }), why);
  t.equal(measured.latency.source, 'estimate');
  t.notOk('note' in measured.latency);
});

t.test('a histogram gives the percentiles when it counted anything', async (t) => {
  const histogram = (fast: number, slow: number) => [
    { lowerMs: 0, upperMs: 1, count: fast, sumMs: fast * 0.2 },
    { lowerMs: 1, upperMs: 10, count: 0, sumMs: 0 },
    { lowerMs: 10, upperMs: 100, count: slow, sumMs: slow * 50 },
  ];
  const metrics = intervalMetrics(
    at(0, { histogram: histogram(100, 1), statements: [] }),
    at(10, { histogram: histogram(1070, 31), statements: [] }),
  );
  t.equal(metrics.latency.source, 'histogram');
  t.ok(Math.abs((metrics.latency.avg_query_time_ms ?? NaN) - (970 * 0.2 + 30 * 50) / 1000) < 1e-9);
  t.equal(metrics.latency.p99_query_time_ms, 50);
  t.ok((metrics.latency.p95_query_time_ms ?? NaN) >= (metrics.latency.avg_query_time_ms ?? NaN));
});

t.test('a restart within the interval gives no rates', async (t) => {
  const metrics = intervalMetrics(
    at(0, { uptimeSeconds: 5000, transactions: 100, statements: [statement('a', 100, 1, 0)], rateCounters: { 'rates.pg_stat_database_xact_commit': 90 } }),
    at(60, { uptimeSeconds: 20, transactions: 400, statements: [statement('a', 500, 1, 0)], rateCounters: { 'rates.pg_stat_database_xact_commit': 390 } }),
  );
  t.same(metrics.throughput, { queries_per_second: null, transactions_per_second: null });
  t.same(metrics.counterRates, { 'rates.pg_stat_database_xact_commit': null });
});

t.test("the rate counters' rates: per second over the interval, none for a counter that went down or just appeared", async (t) => {
  const metrics = intervalMetrics(
    at(0, { uptimeSeconds: 1000, rateCounters: { 'rates.mysql_global_status_questions': 1000, 'rates.mysql_global_status_slow_queries': 50 } }),
    at(20, {
      uptimeSeconds: 1020,
      rateCounters: { 'rates.mysql_global_status_questions': 1500, 'rates.mysql_global_status_slow_queries': 2, 'rates.mysql_global_status_bytes_sent': 7 },
    }),
  );
  t.same(metrics.counterRates, {
    'rates.mysql_global_status_questions': 25,
    'rates.mysql_global_status_slow_queries': null,
    'rates.mysql_global_status_bytes_sent': null,
  });
  t.same(intervalMetrics(undefined, at(0, { rateCounters: { 'rates.mysql_global_status_questions': 1 } })).counterRates, {}, 'none on the first cycle');
});
