import type { CpuTimes, Readings } from './collector.js';
import { counterRate, measureInterval, type Interval } from './counter-delta.js';
import { histogramCount, histogramIncrease, histogramMean, histogramQuantile } from './latency-histogram.js';
import { mixtureQuantile } from './lognormal-mixture.js';
import { statementDeltas, statementStats, type StatementDelta } from './statement-deltas.js';
import type { LatencyQualifiers, StatementStats } from '../../common/agent-protocol/snapshot.js';
import type { MetricValues } from '../../common/metric-catalog.js';

export interface TimedReadings {
  atMs: number;
  readings: Readings;
}

export interface Throughput {
  queries_per_second: number | null;
  transactions_per_second: number | null;
}

export interface Latency extends LatencyQualifiers {
  avg_query_time_ms: number | null;
  p95_query_time_ms: number | null;
  p99_query_time_ms: number | null;
}

export interface IntervalMetrics {
  cpuUsage: number | null;
  throughput: Throughput;
  /** Per-second rates of the readings' rate counters, keyed by the rate's path. */
  counterRates: MetricValues;
  latency: Latency;
  statements?: StatementStats[];
}

function noLatency(note: string): Latency {
  return { avg_query_time_ms: null, p95_query_time_ms: null, p99_query_time_ms: null, source: null, note };
}

/**
 * Rates and latencies over the interval between two cycles' readings. `statisticsNote` says why
 * this cycle's statement statistics can give no latency (missing, or empty so far), when known.
 */
export function intervalMetrics(
  previous: TimedReadings | undefined,
  current: TimedReadings,
  statisticsNote?: string,
): IntervalMetrics {
  const interval =
    previous === undefined
      ? null
      : measureInterval(
          { atMs: previous.atMs },
          { atMs: current.atMs, uptimeSeconds: current.readings.uptimeSeconds },
        );
  if (previous === undefined || interval === null) {
    return {
      cpuUsage: null,
      throughput: { queries_per_second: null, transactions_per_second: null },
      counterRates: {},
      latency: noLatency(statisticsNote ?? 'no interval measured yet: latency needs two cycles'),
    };
  }
  const before = previous.readings;
  const now = current.readings;
  const deltas =
    before.statements === undefined || now.statements === undefined
      ? undefined
      : statementDeltas(before.statements, now.statements);
  return {
    cpuUsage: before.cpu && now.cpu ? cpuUsagePercent(before.cpu, now.cpu) : null,
    throughput: {
      queries_per_second: deltas === undefined || interval.restarted ? null : totalCalls(deltas) / interval.seconds,
      transactions_per_second: counterRate(before.transactions, now.transactions, interval),
    },
    counterRates: counterRates(before.rateCounters ?? {}, now.rateCounters ?? {}, interval),
    latency: clampPercentiles(
      histogramLatency(before, now, deltas) ??
        estimatedLatency(deltas) ??
        noLatency(statisticsNote ?? (deltas === undefined ? 'no statement statistics over the interval' : 'no statement ran in the interval')),
    ),
    ...(deltas && { statements: statementStats(deltas) }),
  };
}

function counterRates(before: NonNullable<Readings['rateCounters']>, now: NonNullable<Readings['rateCounters']>, interval: Interval): MetricValues {
  const paths = Object.keys(now) as (keyof typeof now)[];
  return Object.fromEntries(paths.map((path) => [path, counterRate(before[path], now[path], interval)]));
}

function histogramLatency(before: Readings, now: Readings, deltas: StatementDelta[] | undefined): Latency | null {
  if (before.histogram === undefined || now.histogram === undefined) return null;
  const histogram = histogramIncrease(before.histogram, now.histogram);
  if (histogramCount(histogram) === 0) return null;
  return {
    avg_query_time_ms: histogramMean(histogram) ?? averageMs(deltas),
    p95_query_time_ms: histogramQuantile(histogram, 0.95),
    p99_query_time_ms: histogramQuantile(histogram, 0.99),
    source: 'histogram',
  };
}

function estimatedLatency(deltas: StatementDelta[] | undefined): Latency | null {
  if (deltas === undefined || totalCalls(deltas) === 0) return null;
  const components = deltas.map((delta) => {
    const meanMs = delta.totalMs / delta.calls;
    const variance = delta.sumSquaresMs2 === null ? 0 : delta.sumSquaresMs2 / delta.calls - meanMs ** 2;
    // Differences of large lifetime sums can leave a tiny negative variance behind.
    return { weight: delta.calls, meanMs, stddevMs: Math.sqrt(Math.max(0, variance)) };
  });
  return {
    avg_query_time_ms: averageMs(deltas),
    p95_query_time_ms: mixtureQuantile(components, 0.95),
    p99_query_time_ms: mixtureQuantile(components, 0.99),
    source: 'estimate',
  };
}

/**
 * With a heavy tail the mean can exceed the true 95th percentile (99 calls of 0.01 ms and one of
 * 1 s: mean 10 ms, p95 0.01 ms). The snapshot promises avg <= p95 <= p99, so p95 is reported as
 * max(p95, avg) and p99 as at least that. In such an interval the reported p95 overstates the
 * true one; we prefer that to a p95 below the mean, which consumers relying on the order would
 * misread. Without that case the computed percentiles pass through unchanged: both methods give
 * p99 >= p95 by construction.
 */
function clampPercentiles(latency: Latency): Latency {
  const { avg_query_time_ms: avg, p95_query_time_ms: p95, p99_query_time_ms: p99 } = latency;
  if (p95 === null || p99 === null) return latency;
  const p95Reported = avg === null ? p95 : Math.max(p95, avg);
  return { ...latency, p95_query_time_ms: p95Reported, p99_query_time_ms: Math.max(p99, p95Reported) };
}

function averageMs(deltas: StatementDelta[] | undefined): number | null {
  if (deltas === undefined) return null;
  const calls = totalCalls(deltas);
  return calls === 0 ? null : deltas.reduce((sum, delta) => sum + delta.totalMs, 0) / calls;
}

function totalCalls(deltas: readonly StatementDelta[]): number {
  return deltas.reduce((sum, delta) => sum + delta.calls, 0);
}

function cpuUsagePercent(before: CpuTimes, now: CpuTimes): number | null {
  const total = now.total - before.total;
  if (total <= 0) return null;
  return (Math.min(Math.max(now.busy - before.busy, 0), total) / total) * 100;
}
