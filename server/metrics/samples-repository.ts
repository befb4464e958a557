import type Database from 'better-sqlite3';
import { rollupResolutions, type MetricCatalog, type MetricDefinition, type RollupResolution } from '../../common/metric-catalog.js';
import type { Db } from '../storage/open-database.js';
import type { LatestSnapshotRow, SampleRow } from './sample-row.js';
import { rollupColumns } from './rollup-job.js';

/** A sample as inserted: database, timestamp, reachability, the catalog's metrics in catalog order, latency source. */
export type SampleValues = (string | number | null)[];

/** Over a range: the number of samples, the latency source, and each rate and latency of the catalog by column. */
export interface RangeRates {
  samples: number;
  latency_source: LatencySource | null;
  [column: string]: number | string | null;
}

export type LatencySource = 'histogram' | 'estimate';

/** A point of a series: its time and the columns asked for. */
export type SeriesRow = Record<string, number | null>;

/** A key range delete: what is older than the cutoff, about `limit` rows at most. */
interface RangeDelete {
  cutoff: number;
  limit: number;
}

const maxSeriesStatements = 256;

export class SamplesRepository {
  readonly #insert;
  readonly #markBatch;
  readonly #batchSeen;
  readonly #upsertLatest;
  readonly #latest;
  readonly #lastReached;
  readonly #latestSnapshots;
  readonly #latestOfEach;
  readonly #rates;
  readonly #expireRaw;
  readonly #expireRollups;
  readonly #expireBatches;
  /** Statements that read only the columns asked for, by resolution and columns. */
  readonly #series = new Map<string, Database.Statement<unknown[], SeriesRow>>();

  constructor(
    private readonly db: Db,
    catalog: MetricCatalog,
  ) {
    const sampleColumns = ['database_id', 'ts', 'reachable', ...catalog.map((metric) => metric.column), 'latency_source'];
    // Positional: binding 17 named parameters from an object costs a third more than the insert itself.
    this.#insert = db.prepare<[SampleValues]>(
      `INSERT OR IGNORE INTO samples (${sampleColumns.join(', ')})
       VALUES (${sampleColumns.map(() => '?').join(', ')})`,
    );
    this.#markBatch = db.prepare<[string, string, number]>(
      'INSERT OR IGNORE INTO ingested_batches (source, batch_id, received_at) VALUES (?, ?, ?)',
    );
    this.#batchSeen = db.prepare<[string, string], number>('SELECT 1 FROM ingested_batches WHERE source = ? AND batch_id = ?').pluck();
    this.#upsertLatest = db.prepare<LatestSnapshotRow>(
      `INSERT INTO latest_snapshots (database_id, ts, reachable, error, counters, collectors)
       VALUES (@database_id, @ts, @reachable, @error, @counters, @collectors)
       ON CONFLICT (database_id) DO UPDATE SET ts = excluded.ts, reachable = excluded.reachable,
         error = excluded.error, counters = excluded.counters, collectors = excluded.collectors
       WHERE excluded.ts > latest_snapshots.ts`,
    );
    this.#latest = db.prepare<[string], SampleRow>('SELECT * FROM samples WHERE database_id = ? ORDER BY ts DESC LIMIT 1');
    // Walks the database's samples back from the newest: one row while it is reachable, its outage's rows while it is not.
    this.#lastReached = db
      .prepare<[string], number>('SELECT ts FROM samples WHERE database_id = ? AND reachable = 1 ORDER BY ts DESC LIMIT 1')
      .pluck();
    this.#latestSnapshots = db.prepare<[], LatestSnapshotRow>('SELECT * FROM latest_snapshots');
    // One statement for what latest() reads per database: every database with samples has a latest snapshot.
    this.#latestOfEach = db.prepare<[], SampleRow>(
      'SELECT s.* FROM latest_snapshots l CROSS JOIN samples s WHERE s.rowid = (SELECT rowid FROM samples WHERE database_id = l.database_id ORDER BY ts DESC LIMIT 1)',
    );
    // Rates average over the samples in range; latencies weight each interval by its query rate,
    // which makes the average exact and the percentiles a throughput-weighted mean of interval percentiles.
    // The range's latency is a histogram's only when every interval that weighs in was.
    this.#rates = db.prepare<[string, number, number], RangeRates>(
      `SELECT count(*) AS samples, ${rangeAggregates(catalog).join(', ')}
       FROM samples WHERE database_id = ? AND ts > ? AND ts <= ? AND reachable = 1`,
    );
    this.#expireRaw = db.prepare<RangeDelete & { database_id: string }>(
      `DELETE FROM samples WHERE database_id = @database_id AND ts < @cutoff AND ts <= coalesce(
         (SELECT ts FROM samples WHERE database_id = @database_id AND ts < @cutoff ORDER BY ts LIMIT 1 OFFSET @limit - 1), @cutoff)`,
    );
    this.#expireRollups = db.prepare<RangeDelete & { database_id: string; resolution: string }>(
      `DELETE FROM sample_rollups WHERE database_id = @database_id AND resolution = @resolution AND bucket < @cutoff AND bucket <= coalesce(
         (SELECT bucket FROM sample_rollups WHERE database_id = @database_id AND resolution = @resolution AND bucket < @cutoff
          ORDER BY bucket LIMIT 1 OFFSET @limit - 1), @cutoff)`,
    );
    this.#expireBatches = db.prepare<RangeDelete>(
      `DELETE FROM ingested_batches WHERE received_at < @cutoff AND received_at <= coalesce(
         (SELECT received_at FROM ingested_batches WHERE received_at < @cutoff ORDER BY received_at LIMIT 1 OFFSET @limit - 1), @cutoff)`,
    );
  }

  /** Records a batch id; false when it was stored before. */
  markBatch(source: string, batchId: string, receivedAtMs: number): boolean {
    return this.#markBatch.run(source, batchId, receivedAtMs).changes === 1;
  }

  /** Whether a batch was stored (marked) before. */
  batchSeen(source: string, batchId: string): boolean {
    return this.#batchSeen.get(source, batchId) !== undefined;
  }

  /** False when a sample with this database and timestamp exists already. */
  insert(values: SampleValues): boolean {
    return this.#insert.run(values).changes === 1;
  }

  /** True when this snapshot is now the newest of its database. */
  upsertLatest(row: LatestSnapshotRow): boolean {
    return this.#upsertLatest.run(row).changes === 1;
  }

  latest(databaseId: string): SampleRow | undefined {
    return this.#latest.get(databaseId);
  }

  /** The newest sample of every database that has one. */
  latestOfEach(): SampleRow[] {
    return this.#latestOfEach.all();
  }

  /** When a collection last reached the database (ms), among the samples retention keeps. */
  lastReachedAt(databaseId: string): number | undefined {
    return this.#lastReached.get(databaseId);
  }

  /** Every sample of a database from `fromMs` on, oldest first, with its reachability and these metrics' values: what alert evaluation reads. */
  since(databaseId: string, fromMs: number, metrics: readonly MetricDefinition[]): (SeriesRow & { ts: number; reachable: number })[] {
    const columns = ['ts', 'reachable', ...metrics.map((metric) => metric.column)];
    return this.#statement(`since ${columns.join(',')}`, () => `SELECT ${columns.join(', ')} FROM samples WHERE database_id = ? AND ts >= ? ORDER BY ts`).all(
      databaseId,
      fromMs,
    ) as (SeriesRow & { ts: number; reachable: number })[];
  }

  latestSnapshots(): LatestSnapshotRow[] {
    return this.#latestSnapshots.all();
  }

  rangeRates(databaseId: string, fromMs: number, toMs: number): RangeRates {
    return this.#rates.get(databaseId, fromMs, toMs)!;
  }

  /** These metrics' values of the first `limit` samples in [from, to), oldest first. */
  rawSeries(databaseId: string, metrics: readonly MetricDefinition[], fromMs: number, toMs: number, limit: number): SeriesRow[] {
    const columns = ['ts', ...metrics.map((metric) => metric.column)];
    return this.#statement(`raw ${columns.join(',')}`, () =>
      `SELECT ${columns.join(', ')} FROM samples WHERE database_id = ? AND ts >= ? AND ts < ? ORDER BY ts LIMIT ?`,
    ).all(databaseId, fromMs, toMs, limit);
  }

  /**
   * These metrics' `<column>_avg|_min|_max` in the first `limit` buckets of one resolution
   * starting in [from, to). A bucket with samples the rollup job has not folded yet is its folded
   * part (if any) merged with those samples, so a read never waits for a fold nor writes one.
   */
  rollupSeries(databaseId: string, resolution: RollupResolution, metrics: readonly MetricDefinition[], fromMs: number, toMs: number, limit: number): SeriesRow[] {
    const columns = rollupColumns(metrics);
    const key = `${resolution} ${columns.join(',')}`;
    const width = rollupResolutions.find((candidate) => candidate.name === resolution)!.ms;
    const pending = this.#statement(`pending ${key}`, () => {
      const aggregates = metrics.flatMap(({ column: c }) => [`avg(${c}) AS ${c}_avg`, `min(${c}) AS ${c}_min`, `max(${c}) AS ${c}_max`, `count(${c}) AS ${c}_count`]);
      // NOT INDEXED: the rowid range of the samples not folded yet, not this database's whole index range.
      return `SELECT ${[`(ts / ${width}) * ${width} AS ts`, 'count(*) AS samples', ...aggregates].join(', ')} FROM samples NOT INDEXED
              WHERE id > (SELECT last_sample_id FROM rollup_watermark WHERE id = 1) AND database_id = ? AND ts >= ? AND ts < ?
              GROUP BY ts / ${width} ORDER BY 1`;
    }).all(databaseId, fromMs, toMs);
    // Counts (the last columns of a row, the dearest to read) only where a merge needs them.
    const folded = (counted: boolean) =>
      this.#statement(`${counted ? 'counted' : 'folded'} ${key}`, () => {
        const read = counted ? ['samples', ...columns] : columns.filter((column) => !column.endsWith('_count'));
        return `SELECT ${['bucket AS ts', ...read].join(', ')} FROM sample_rollups
                WHERE database_id = ? AND resolution = '${resolution}' AND bucket >= ? AND bucket < ? ORDER BY bucket LIMIT ?`;
      });
    const series = folded(false).all(databaseId, fromMs, toMs, limit);
    if (pending.length === 0) return series;
    const counted = folded(true).all(databaseId, pending[0]!.ts!, toMs, limit);
    return mergeBuckets(series, counted, pending, metrics).slice(0, limit);
  }

  /** Drops up to `limit` of a database's samples older than the cutoff, oldest first; returns how many. */
  expireRaw(databaseId: string, cutoffMs: number, limit: number): number {
    return this.#expireRaw.run({ database_id: databaseId, cutoff: cutoffMs, limit }).changes;
  }

  /** Drops up to `limit` of a database's buckets of one resolution older than the cutoff. */
  expireRollups(databaseId: string, resolution: RollupResolution, cutoffMs: number, limit: number): number {
    return this.#expireRollups.run({ database_id: databaseId, resolution, cutoff: cutoffMs, limit }).changes;
  }

  /** Drops about `limit` batch ids received before the cutoff (more when several share the last instant). */
  expireBatches(cutoffMs: number, limit: number): number {
    return this.#expireBatches.run({ cutoff: cutoffMs, limit }).changes;
  }

  #statement(key: string, sql: () => string): Database.Statement<unknown[], SeriesRow> {
    let statement = this.#series.get(key);
    if (statement === undefined) {
      // Bounded: the metric sets a client may ask for are many more than those in use.
      if (this.#series.size >= maxSeriesStatements) this.#series.clear();
      statement = this.db.prepare<unknown[], SeriesRow>(sql());
      this.#series.set(key, statement);
    }
    return statement;
  }
}

/**
 * Folded buckets and pending ones as one series, in bucket order: a bucket in both is the
 * count-weighted merge of its folded part (`counted`, with its counts) and its pending samples.
 */
function mergeBuckets(series: SeriesRow[], counted: SeriesRow[], pending: SeriesRow[], metrics: readonly MetricDefinition[]): SeriesRow[] {
  const countedAt = new Map(counted.map((row) => [row.ts!, row]));
  const indexAt = new Map(series.map((row, index) => [row.ts!, index]));
  const merged = [...series];
  for (const row of pending) {
    const old = countedAt.get(row.ts!);
    if (old === undefined) {
      merged.push(row);
      continue;
    }
    const both: SeriesRow = { ts: row.ts!, samples: old.samples! + row.samples! };
    for (const { column: c } of metrics) {
      // Buckets folded before value counts were kept weigh by their sample count.
      const oldCount = old[`${c}_count`] ?? (old[`${c}_avg`] === null ? 0 : old.samples!);
      const newCount = row[`${c}_count`]!;
      const count = oldCount + newCount;
      both[`${c}_avg`] = count === 0 ? null : ((old[`${c}_avg`] ?? 0) * oldCount + (row[`${c}_avg`] ?? 0) * newCount) / count;
      both[`${c}_min`] = extreme(Math.min, old[`${c}_min`] ?? null, row[`${c}_min`] ?? null);
      both[`${c}_max`] = extreme(Math.max, old[`${c}_max`] ?? null, row[`${c}_max`] ?? null);
    }
    const index = indexAt.get(row.ts!);
    if (index === undefined) merged.push(both);
    else merged[index] = both;
  }
  return merged.sort((a, b) => a.ts! - b.ts!);
}

function extreme(pick: (a: number, b: number) => number, a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : pick(a, b);
}

/**
 * Rates average over the samples in range; latencies weight each interval by their rate, which
 * makes the average exact and the percentiles a throughput-weighted mean of interval percentiles.
 * The range's latency is a histogram's only when every interval that weighs in was.
 */
function rangeAggregates(catalog: MetricCatalog): string[] {
  const columnOf = (path: string) => catalog.find((metric) => metric.path === path)!.column;
  const latencies = catalog.filter((metric) => metric.kind === 'latency');
  const aggregates = catalog.flatMap((metric) => {
    if (metric.kind === 'rate') return [`avg(${metric.column}) AS ${metric.column}`];
    if (metric.kind !== 'latency') return [];
    const weight = columnOf(metric.weightedBy!);
    return [`sum(${metric.column} * ${weight}) / nullif(sum(CASE WHEN ${metric.column} IS NOT NULL THEN ${weight} END), 0) AS ${metric.column}`];
  });
  if (latencies.length === 0) return [...aggregates, 'NULL AS latency_source'];
  const weighsIn = `${columnOf(latencies[0]!.weightedBy!)} > 0 AND coalesce(${latencies.map((metric) => metric.column).join(', ')}) IS NOT NULL`;
  return [
    ...aggregates,
    `CASE WHEN sum(${weighsIn}) > 0
       THEN CASE WHEN sum(${weighsIn} AND latency_source = 'histogram') = sum(${weighsIn}) THEN 'histogram' ELSE 'estimate' END
     END AS latency_source`,
  ];
}
