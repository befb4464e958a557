import type { Logger } from 'pino';
import type { MetricPath, MetricValues } from '../../common/metric-catalog.js';

export interface CollectContext {
  signal: AbortSignal;
  now: Date;
  logger: Logger;
}

/**
 * One statistics view turned into values. A collector reports cumulative readings, and the runner
 * turns consecutive readings into per-interval rates; what a collector keeps between cycles is
 * only what spares the engine work (a setting read every few minutes, statement texts already read).
 */
export interface Collector<Source> {
  readonly name: string;
  /** It reads the statement statistics that latency comes from: its failure says why there is none. */
  readonly explainsMissingLatency?: boolean;
  /**
   * Its readings become per-second rates: the runner runs it before the others (in their order)
   * and stamps the sample with when the first of them read, so that neither a slow collector nor
   * a reconnect stretches or shrinks an interval.
   */
  readonly readsRateCounters?: boolean;
  collect(source: Source, ctx: CollectContext): Promise<Contribution>;
}

/** What one collector adds to the snapshot of a cycle; contributions are merged by the runner. */
export interface Contribution {
  version?: string;
  /** Metrics read directly, keyed by catalog path; rates and latencies come from `readings`. */
  values?: MetricValues;
  counters?: Record<string, number>;
  readings?: Readings;
  /** Why the statement statistics read cannot give a latency, when they cannot (none recorded yet). */
  latencyNote?: string;
}

/** Cumulative values whose per-interval deltas become rates and latencies. */
export interface Readings {
  /** Seconds since the engine started; lets a restart be told apart from a quiet interval. */
  uptimeSeconds?: number;
  /** Committed plus rolled back transactions. */
  transactions?: number;
  /** Engine counters whose per-second rates are catalog metrics, keyed by the rate's path. */
  rateCounters?: Partial<Record<MetricPath, number>>;
  statements?: StatementTotals[];
  /** A cumulative latency histogram; buckets are disjoint and ordered by bound. */
  histogram?: HistogramBucket[];
  cpu?: CpuTimes;
}

/** Lifetime statistics of one entry of the engine's statement statistics view. */
export interface StatementTotals {
  /** Identity of the view's row across readings (it may be wider than the query id). */
  key: string;
  /** The engine's query id or digest. */
  queryId: string;
  query: string;
  calls: number;
  totalMs: number;
  /** Sum of squared durations, when the engine keeps a deviation; null when it does not. */
  sumSquaresMs2: number | null;
  maxMs: number | null;
  rows: number;
}

export interface HistogramBucket {
  lowerMs: number;
  /** Infinity for the overflow bucket. */
  upperMs: number;
  count: number;
  /** Total time of the statements in this bucket, when the engine reports it. */
  sumMs: number | null;
}

/** Jiffies from the first line of /proc/stat. */
export interface CpuTimes {
  busy: number;
  total: number;
}

/** What the runner needs of every source: a cheap check that the database answers. */
export interface Pingable {
  ping(signal: AbortSignal): Promise<void>;
}
