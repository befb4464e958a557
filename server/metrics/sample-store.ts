import type { MetricDefinition, RollupResolution } from '../../common/metric-catalog.js';
import type { LatestSnapshotRow, SampleRow } from './sample-row.js';

/** A sample as inserted: database, timestamp, reachability, the catalog's metrics in catalog order, latency source. */
export type SampleValues = (string | number | null)[];

/** Over a range: the number of samples, the latency source, and each rate and latency of the catalog by column. */
export interface RangeRates {
  samples: number;
  latency_source: LatencySource | null;
  [column: string]: number | string | null;
}

type LatencySource = 'histogram' | 'estimate';

/** A point of a series: its time and the columns asked for. */
export type SeriesRow = Record<string, number | null>;

/**
 * Where samples are kept, as the rest of the server writes and reads them: ingest writes through
 * it; history, alert evaluation, slow queries and the /metrics scrape read through it. The
 * embedded store is SQLite's (samples-repository.ts), whose upkeep (rollups, seals, retention) is
 * its own jobs', wired beside it in create-metrics.ts; another backend, such as a
 * Prometheus-compatible remote-write store, is one more module that implements this.
 */
export interface SampleStore {
  /** Records a batch id; false when it was stored before. */
  markBatch(source: string, batchId: string, receivedAtMs: number): boolean;
  /** Whether a batch was stored (marked) before. */
  batchSeen(source: string, batchId: string): boolean;
  /** Stores one sample; false when one with this database and timestamp exists already. */
  insert(values: SampleValues): boolean;
  /** True when this snapshot is now the newest of its database. */
  upsertLatest(row: LatestSnapshotRow): boolean;
  latest(databaseId: string): SampleRow | undefined;
  /** The newest sample of every database that has one. */
  latestOfEach(): SampleRow[];
  latestSnapshots(): LatestSnapshotRow[];
  /** When a collection last reached the database (ms), among the samples retention keeps. */
  lastReachedAt(databaseId: string): number | undefined;
  /** The newest sample before `beforeMs` whose collection reached the database (ms): where a statement interval starts. */
  lastReachedBefore(databaseId: string, beforeMs: number): number | undefined;
  /** Every sample of a database from `fromMs` on, oldest first, with its reachability and these metrics' values: what alert evaluation reads. */
  since(databaseId: string, fromMs: number, metrics: readonly MetricDefinition[]): (SeriesRow & { ts: number; reachable: number })[];
  /**
   * Rates average over the reachable samples in (from, to]; latencies weight each interval by its
   * query rate, which makes the average exact and the percentiles a throughput-weighted mean of
   * interval percentiles. The range's latency is a histogram's only when every interval that weighs in was.
   */
  rangeRates(databaseId: string, fromMs: number, toMs: number): RangeRates;
  /** These metrics' values of the first `limit` samples in [from, to), oldest first. */
  rawSeries(databaseId: string, metrics: readonly MetricDefinition[], fromMs: number, toMs: number, limit: number): SeriesRow[];
  /** These metrics' `<column>_avg|_min|_max` in the first `limit` buckets of one resolution starting in [from, to), every sample stored so far in them. */
  rollupSeries(databaseId: string, resolution: RollupResolution, metrics: readonly MetricDefinition[], fromMs: number, toMs: number, limit: number): SeriesRow[];
}
