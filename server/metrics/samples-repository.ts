import type { Db } from '../storage/open-database.js';
import { metricCatalog, type MetricDefinition } from './metric-catalog.js';

export interface SampleRow {
  database_id: string;
  ts: number;
  reachable: number;
  cpu_usage: number | null;
  memory_usage: number | null;
  disk_usage: number | null;
  connections_active: number | null;
  connections_idle: number | null;
  connections_total: number | null;
  connections_max: number | null;
  queries_per_second: number | null;
  transactions_per_second: number | null;
  avg_query_time_ms: number | null;
  p95_query_time_ms: number | null;
  p99_query_time_ms: number | null;
  latency_source: string | null;
  database_size_bytes: number | null;
}

export interface LatestSnapshotRow {
  database_id: string;
  ts: number;
  reachable: number;
  error: string | null;
  counters: string;
  collectors: string;
}

export interface RangeRates {
  samples: number;
  queries_per_second: number | null;
  transactions_per_second: number | null;
  avg_query_time_ms: number | null;
  p95_query_time_ms: number | null;
  p99_query_time_ms: number | null;
  latency_source: LatencySource | null;
}

export type LatencySource = 'histogram' | 'estimate';

const sampleColumns: readonly (keyof SampleRow)[] = [
  'database_id', 'ts', 'reachable', ...metricCatalog.map((metric) => metric.column as keyof SampleRow), 'latency_source',
];

export function rollupColumns(metrics: readonly MetricDefinition[]): string[] {
  return metrics.flatMap((metric) => ['avg', 'min', 'max'].map((stat) => `${metric.column}_${stat}`));
}

export class SamplesRepository {
  readonly #insert;
  readonly #markBatch;
  readonly #upsertLatest;
  readonly #latest;
  readonly #latestSnapshots;
  readonly #rates;
  readonly #raw;
  readonly #rollups;
  readonly #since;

  constructor(db: Db) {
    // Positional: binding 17 named parameters from an object costs a third more than the insert itself.
    this.#insert = db.prepare<[SampleRow[keyof SampleRow][]]>(
      `INSERT OR IGNORE INTO samples (${sampleColumns.join(', ')})
       VALUES (${sampleColumns.map(() => '?').join(', ')})`,
    );
    this.#markBatch = db.prepare<[string, string, number]>(
      'INSERT OR IGNORE INTO ingested_batches (source, batch_id, received_at) VALUES (?, ?, ?)',
    );
    this.#upsertLatest = db.prepare<LatestSnapshotRow>(
      `INSERT INTO latest_snapshots (database_id, ts, reachable, error, counters, collectors)
       VALUES (@database_id, @ts, @reachable, @error, @counters, @collectors)
       ON CONFLICT (database_id) DO UPDATE SET ts = excluded.ts, reachable = excluded.reachable,
         error = excluded.error, counters = excluded.counters, collectors = excluded.collectors
       WHERE excluded.ts > latest_snapshots.ts`,
    );
    this.#latest = db.prepare<[string], SampleRow>('SELECT * FROM samples WHERE database_id = ? ORDER BY ts DESC LIMIT 1');
    this.#latestSnapshots = db.prepare<[], LatestSnapshotRow>('SELECT * FROM latest_snapshots');
    this.#since = db.prepare<[string, number], SampleRow>('SELECT * FROM samples WHERE database_id = ? AND ts >= ? ORDER BY ts');
    // Rates average over the samples in range; latencies weight each interval by its query rate,
    // which makes the average exact and the percentiles a throughput-weighted mean of interval percentiles.
    // The range's latency is a histogram's only when every interval that weighs in was.
    const weighsInLatency =
      'queries_per_second > 0 AND coalesce(avg_query_time_ms, p95_query_time_ms, p99_query_time_ms) IS NOT NULL';
    this.#rates = db.prepare<[string, number, number], RangeRates>(
      `SELECT count(*) AS samples,
         avg(queries_per_second) AS queries_per_second,
         avg(transactions_per_second) AS transactions_per_second,
         sum(avg_query_time_ms * queries_per_second) / nullif(sum(CASE WHEN avg_query_time_ms IS NOT NULL THEN queries_per_second END), 0) AS avg_query_time_ms,
         sum(p95_query_time_ms * queries_per_second) / nullif(sum(CASE WHEN p95_query_time_ms IS NOT NULL THEN queries_per_second END), 0) AS p95_query_time_ms,
         sum(p99_query_time_ms * queries_per_second) / nullif(sum(CASE WHEN p99_query_time_ms IS NOT NULL THEN queries_per_second END), 0) AS p99_query_time_ms,
         CASE WHEN sum(${weighsInLatency}) > 0
           THEN CASE WHEN sum(${weighsInLatency} AND latency_source = 'histogram') = sum(${weighsInLatency}) THEN 'histogram' ELSE 'estimate' END
         END AS latency_source
       FROM samples WHERE database_id = ? AND ts > ? AND ts <= ? AND reachable = 1`,
    );
    const metricColumns = metricCatalog.map((metric) => metric.column);
    this.#raw = db.prepare<[string, number, number, number], Record<string, number | null>>(
      `SELECT ts, ${metricColumns.join(', ')} FROM samples WHERE database_id = ? AND ts >= ? AND ts < ? ORDER BY ts LIMIT ?`,
    );
    this.#rollups = db.prepare<[string, string, number, number, number], Record<string, number | null>>(
      `SELECT bucket AS ts, ${rollupColumns(metricCatalog).join(', ')} FROM sample_rollups
       WHERE database_id = ? AND resolution = ? AND bucket >= ? AND bucket < ? ORDER BY bucket LIMIT ?`,
    );
  }

  /** Records a batch id; false when it was stored before. */
  markBatch(source: string, batchId: string, receivedAtMs: number): boolean {
    return this.#markBatch.run(source, batchId, receivedAtMs).changes === 1;
  }

  /** False when a sample with this database and timestamp exists already. */
  insert(row: SampleRow): boolean {
    return this.#insert.run(sampleColumns.map((column) => row[column])).changes === 1;
  }

  /** True when this snapshot is now the newest of its database. */
  upsertLatest(row: LatestSnapshotRow): boolean {
    return this.#upsertLatest.run(row).changes === 1;
  }

  latest(databaseId: string): SampleRow | undefined {
    return this.#latest.get(databaseId);
  }

  /** Every sample of a database from `fromMs` on, oldest first: what alert evaluation reads. */
  since(databaseId: string, fromMs: number): SampleRow[] {
    return this.#since.all(databaseId, fromMs);
  }

  latestSnapshots(): LatestSnapshotRow[] {
    return this.#latestSnapshots.all();
  }

  rangeRates(databaseId: string, fromMs: number, toMs: number): RangeRates {
    return this.#rates.get(databaseId, fromMs, toMs)!;
  }

  /** Every metric column of the first `limit` samples in [from, to), oldest first. */
  rawSeries(databaseId: string, fromMs: number, toMs: number, limit: number): Record<string, number | null>[] {
    return this.#raw.all(databaseId, fromMs, toMs, limit);
  }

  /** Every `<column>_avg|_min|_max` of the first `limit` buckets of one resolution starting in [from, to). */
  rollupSeries(databaseId: string, resolution: string, fromMs: number, toMs: number, limit: number): Record<string, number | null>[] {
    return this.#rollups.all(databaseId, resolution, fromMs, toMs, limit);
  }
}
