import type Database from 'better-sqlite3';
import { rollupResolutions, type MetricCatalog, type MetricDefinition, type RollupResolution } from '../../common/metric-catalog.js';
import type { Db } from '../storage/open-database.js';
import { hourMs, type HourSample } from './blocks/hour-block.js';
import type { LatestSnapshotRow, SampleRow } from './sample-row.js';
import type { RangeRates, SampleStore, SampleValues, SeriesRow } from './sample-store.js';
import { RollupBlocks, sealedResolution } from './rollup-blocks.js';
import { rollupColumns } from './rollup-columns.js';
import { hourOf, SealedHours } from './sealed-hours.js';

/** A key range delete: what is older than the cutoff, about `limit` rows at most. */
interface RangeDelete {
  cutoff: number;
  limit: number;
}

const maxSeriesStatements = 256;

/** A bound below every timestamp, for SQL (which takes no -Infinity from a number). */
const beforeAll = Number.MIN_SAFE_INTEGER;

/**
 * The embedded sample store, in SQLite: the open hours' samples as rows (`samples`), closed hours
 * sealed into blocks (SealedHours), rollups as rows until their span is sealed (RollupBlocks).
 */
export class SamplesRepository implements SampleStore {
  readonly #insert;
  readonly #markBatch;
  readonly #batchSeen;
  readonly #upsertLatest;
  readonly #latest;
  readonly #lastReached;
  readonly #latestSnapshots;
  readonly #latestOfEach;
  readonly #expireRaw;
  readonly #expireRollups;
  readonly #expireBatches;
  readonly #oldestTs;
  readonly #hourRows;
  readonly #deleteHour;
  readonly #newestSealedHours;
  readonly #sealed;
  readonly #sampleColumns: string[];
  readonly #rateColumns: string[];
  readonly #rangeSums;
  /** Statements that read only the columns asked for, by resolution and columns. */
  readonly #series = new Map<string, Database.Statement<unknown[], SeriesRow>>();

  constructor(
    private readonly db: Db,
    private readonly catalog: MetricCatalog,
    private readonly blocks = new RollupBlocks(db, catalog),
  ) {
    const sampleColumns = ['database_id', 'ts', 'reachable', ...catalog.map((metric) => metric.column), 'latency_source'];
    this.#sampleColumns = sampleColumns;
    this.#sealed = new SealedHours(db, catalog);
    // Positional: binding 17 named parameters from an object costs a third more than the insert itself.
    // A trigger (migration 0033) queues a stored sample for the rollup job.
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
    // The columns a sealed sample has too (not the row id).
    this.#latest = db.prepare<[string], SampleRow>(`SELECT ${sampleColumns.join(', ')} FROM samples WHERE database_id = ? ORDER BY ts DESC LIMIT 1`);
    // Walks the database's samples back from `before`: one row while it is reachable, its outage's rows while it is not.
    this.#lastReached = db
      .prepare<[string, number], number>('SELECT ts FROM samples WHERE database_id = ? AND ts < ? AND reachable = 1 ORDER BY ts DESC LIMIT 1')
      .pluck();
    this.#latestSnapshots = db.prepare<[], LatestSnapshotRow>('SELECT * FROM latest_snapshots');
    // One statement for what latest() reads per database: every database with samples has a latest snapshot.
    this.#latestOfEach = db.prepare<[], SampleRow>(
      `SELECT ${sampleColumns.map((column) => `s.${column}`).join(', ')} FROM latest_snapshots l CROSS JOIN samples s
       WHERE s.database_id = l.database_id AND s.ts = (SELECT max(ts) FROM samples WHERE database_id = l.database_id)`,
    );
    this.#rateColumns = rateColumns(catalog);
    this.#rangeSums = db.prepare<[string, number, number], RangeSums>(
      `SELECT count(*) AS samples, ${rangeSums(catalog).join(', ')} FROM samples WHERE database_id = ? AND ts > ? AND ts <= ? AND reachable = 1`,
    );
    this.#newestSealedHours = db.prepare<[], { database_id: string; hour: number | null }>(
      'SELECT database_id, (SELECT max(hour) FROM sample_hours h WHERE h.database_id = l.database_id) AS hour FROM latest_snapshots l',
    );
    this.#oldestTs = db.prepare<[string], number | null>('SELECT min(ts) FROM samples WHERE database_id = ?').pluck();
    this.#hourRows = db.prepare<[string, number, number], SampleRow>('SELECT * FROM samples WHERE database_id = ? AND ts >= ? AND ts < ? ORDER BY ts');
    this.#deleteHour = db.prepare<[string, number, number]>('DELETE FROM samples WHERE database_id = ? AND ts >= ? AND ts < ?');
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

  markBatch(source: string, batchId: string, receivedAtMs: number): boolean {
    return this.#markBatch.run(source, batchId, receivedAtMs).changes === 1;
  }

  batchSeen(source: string, batchId: string): boolean {
    return this.#batchSeen.get(source, batchId) !== undefined;
  }

  /**
   * A sample for a sealed hour (an agent's spool draining late) first turns that hour back into
   * rows, which the rollup job then folds again and the seal job seals again.
   */
  insert(values: SampleValues): boolean {
    const databaseId = values[0] as string;
    const ts = values[1] as number;
    const sealed = this.#sealed.hourAt(databaseId, ts);
    if (sealed !== undefined) {
      if (sealed.some((sample) => sample.ts === ts)) return false;
      this.#sealed.unseal(databaseId, ts);
      for (const sample of sealed) this.#insert.run(this.#sampleColumns.map((column) => (column === 'database_id' ? databaseId : sample[column]!)));
    }
    return this.#insert.run(values).changes === 1;
  }

  upsertLatest(row: LatestSnapshotRow): boolean {
    return this.#upsertLatest.run(row).changes === 1;
  }

  latest(databaseId: string): SampleRow | undefined {
    const row = this.#latest.get(databaseId);
    return this.#newerSealed(databaseId, row) ?? row;
  }

  latestOfEach(): SampleRow[] {
    const rows = new Map(this.#latestOfEach.all().map((row) => [row.database_id, row]));
    for (const { database_id, hour } of this.#newestSealedHours.all()) {
      const row = rows.get(database_id);
      if (hour === null || hour < (row?.ts ?? beforeAll)) continue;
      const sealed = this.#newerSealed(database_id, row);
      if (sealed !== undefined) rows.set(database_id, sealed);
    }
    return [...rows.values()];
  }

  lastReachedAt(databaseId: string): number | undefined {
    return this.lastReachedBefore(databaseId, Number.MAX_SAFE_INTEGER);
  }

  lastReachedBefore(databaseId: string, beforeMs: number): number | undefined {
    const row = this.#lastReached.get(databaseId, beforeMs);
    // Rows and blocks never share an hour: a sealed hour after the newest such row is after that row.
    return this.#sealed.newest(databaseId, row ?? beforeAll, beforeMs, [], (sample) => sample.reachable === 1)?.ts ?? row;
  }

  since(databaseId: string, fromMs: number, metrics: readonly MetricDefinition[]): (SeriesRow & { ts: number; reachable: number })[] {
    const columns = ['ts', 'reachable', ...metrics.map((metric) => metric.column)];
    const rows = this.#statement(`since ${columns.join(',')}`, () => `SELECT ${columns.join(', ')} FROM samples WHERE database_id = ? AND ts >= ? ORDER BY ts`).all(
      databaseId,
      fromMs,
    ) as (SeriesRow & { ts: number; reachable: number })[];
    const sealed = this.#sealed.samples(databaseId, fromMs, Number.MAX_SAFE_INTEGER, columns.slice(2));
    return sealed.length === 0 ? rows : inTimeOrder(rows, sealed.map((sample) => pick(sample, columns) as SeriesRow & { ts: number; reachable: number }));
  }

  latestSnapshots(): LatestSnapshotRow[] {
    return this.#latestSnapshots.all();
  }

  rangeRates(databaseId: string, fromMs: number, toMs: number): RangeRates {
    const sums = this.#rangeSums.get(databaseId, fromMs, toMs)!;
    for (const sample of this.#sealed.samples(databaseId, fromMs + 1, toMs + 1, this.#rateColumns)) {
      if (sample.reachable === 1) addToSums(sums, sample, this.catalog);
    }
    return ratesOf(sums, this.catalog);
  }

  rawSeries(databaseId: string, metrics: readonly MetricDefinition[], fromMs: number, toMs: number, limit: number): SeriesRow[] {
    const columns = ['ts', ...metrics.map((metric) => metric.column)];
    const rows = this.#statement(`raw ${columns.join(',')}`, () =>
      `SELECT ${columns.join(', ')} FROM samples WHERE database_id = ? AND ts >= ? AND ts < ? ORDER BY ts LIMIT ?`,
    ).all(databaseId, fromMs, toMs, limit);
    const sealed = this.#sealed.samples(databaseId, fromMs, toMs, columns.slice(1), limit);
    return sealed.length === 0 ? rows : inTimeOrder(rows, sealed.map((sample) => pick(sample, columns))).slice(0, limit);
  }

  /**
   * A bucket with samples the rollup job has not folded yet is its folded part (if any) merged
   * with those samples, so a read never waits for a fold nor writes one.
   */
  rollupSeries(databaseId: string, resolution: RollupResolution, metrics: readonly MetricDefinition[], fromMs: number, toMs: number, limit: number): SeriesRow[] {
    const columns = rollupColumns(metrics);
    const key = `${resolution} ${columns.join(',')}`;
    const width = rollupResolutions.find((candidate) => candidate.name === resolution)!.ms;
    const pending = this.#statement(`pending ${key}`, () => {
      const aggregates = metrics.flatMap(({ column: c }) => [`avg(${c}) AS ${c}_avg`, `min(${c}) AS ${c}_min`, `max(${c}) AS ${c}_max`, `count(${c}) AS ${c}_count`]);
      // From the few samples not folded yet, not this database's whole key range.
      return `SELECT ${[`(s.ts / ${width}) * ${width} AS ts`, 'count(*) AS samples', ...aggregates].join(', ')}
              FROM samples_pending p CROSS JOIN samples s ON s.database_id = p.database_id AND s.ts = p.ts
              WHERE p.seq > (SELECT last_sample_id FROM rollup_watermark WHERE id = 1) AND p.database_id = ? AND p.ts >= ? AND p.ts < ?
              GROUP BY s.ts / ${width} ORDER BY 1`;
    }).all(databaseId, fromMs, toMs);
    // Counts (the last columns of a row, the dearest to read) only where a merge needs them.
    const folded = (counted: boolean) =>
      this.#statement(`${counted ? 'counted' : 'folded'} ${key}`, () => {
        const read = counted ? ['samples', ...columns] : columns.filter((column) => !column.endsWith('_count'));
        return `SELECT ${['bucket AS ts', ...read].join(', ')} FROM sample_rollups
                WHERE database_id = ? AND resolution = '${resolution}' AND bucket >= ? AND bucket < ? ORDER BY bucket LIMIT ?`;
      });
    const sealed = sealedResolution(resolution);
    // A span is rows or a block, never both: the first `limit` buckets are among the first `limit` of each.
    const stored = (counted: boolean, from: number) => {
      const rows = folded(counted).all(databaseId, from, toMs, limit);
      const blockRows = sealed === undefined ? [] : this.blocks.read(databaseId, sealed, metrics, from, toMs, limit, counted);
      return blockRows.length === 0 ? rows : [...blockRows, ...rows].sort((a, b) => a.ts! - b.ts!).slice(0, limit);
    };
    const series = stored(false, fromMs);
    if (pending.length === 0) return series;
    const counted = stored(true, pending[0]!.ts!);
    return mergeBuckets(series, counted, pending, metrics).slice(0, limit);
  }

  /** Drops up to `limit` of a database's samples older than the cutoff, oldest first; returns how many. */
  expireRaw(databaseId: string, cutoffMs: number, limit: number): number {
    return this.#expireRaw.run({ database_id: databaseId, cutoff: cutoffMs, limit }).changes;
  }

  /** Drops up to `limit` of a database's sealed hours that ended by the cutoff, oldest first; returns how many. */
  expireSealedHours(databaseId: string, cutoffMs: number, limit: number): number {
    return this.#sealed.expire(databaseId, cutoffMs, limit);
  }

  /**
   * Seals a database's oldest hour of rows into a block, if that hour ended by `endedByMs` and the
   * rollup job has folded all its rows (it reads raw rows); false when there is none such. The
   * caller holds the transaction: the block replaces the rows at once.
   */
  sealOldestHour(databaseId: string, endedByMs: number): boolean {
    const oldest = this.#oldestTs.get(databaseId)!;
    if (oldest === null) return false;
    const hour = hourOf(oldest);
    if (hour + hourMs > endedByMs) return false;
    if (this.blocks.hasPending(databaseId, hour, hour + hourMs)) return false;
    const rows = this.#hourRows.all(databaseId, hour, hour + hourMs);
    this.#sealed.seal(databaseId, hour, rows as unknown as HourSample[]);
    this.#deleteHour.run(databaseId, hour, hour + hourMs);
    return true;
  }

  /** Drops up to `limit` of a database's buckets of one resolution older than the cutoff, and about `limit` of its sealed spans that end by it; returns how many. */
  expireRollups(databaseId: string, resolution: RollupResolution, cutoffMs: number, limit: number): number {
    const sealed = sealedResolution(resolution);
    const spans = sealed === undefined ? 0 : this.blocks.expire(databaseId, sealed, cutoffMs, limit);
    return spans + this.#expireRollups.run({ database_id: databaseId, resolution, cutoff: cutoffMs, limit }).changes;
  }

  /** Drops about `limit` batch ids received before the cutoff (more when several share the last instant). */
  expireBatches(cutoffMs: number, limit: number): number {
    return this.#expireBatches.run({ cutoff: cutoffMs, limit }).changes;
  }

  /** The newest sealed sample of a database when it is newer than this row (or there is no row), with every catalog column. */
  #newerSealed(databaseId: string, row: SampleRow | undefined): SampleRow | undefined {
    const sample = this.#sealed.newest(databaseId, row?.ts ?? beforeAll, Number.MAX_SAFE_INTEGER, this.#sampleColumns.slice(3, -1), () => true);
    return sample === undefined ? undefined : ({ database_id: databaseId, ...sample } as SampleRow);
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

/** Two series of distinct times as one, oldest first. */
function inTimeOrder<Row extends SeriesRow>(rows: Row[], sealed: Row[]): Row[] {
  return [...rows, ...sealed].sort((a, b) => a.ts! - b.ts!);
}

function pick(sample: HourSample, columns: readonly string[]): SeriesRow {
  const row: SeriesRow = {};
  for (const column of columns) row[column] = sample[column] as number | null;
  return row;
}

/**
 * What rangeRates adds up over its samples, so that rows (in SQL) and sealed hours (here) add to
 * one answer: per rate its sum and count; per latency its rate-weighted sum and the weights where
 * it has a value; how many intervals weigh in on the latency source, and how many of them by histogram.
 */
type RangeSums = Record<string, number | null> & { samples: number; weighs: number | null; histograms: number | null };

const sumOf = (column: string) => `${column}_sum`;
const countOf = (column: string) => `${column}_n`;

function columnOf(catalog: MetricCatalog, path: string): string {
  return catalog.find((metric) => metric.path === path)!.column;
}

/** The columns rangeRates reads: the rates, the latencies and what weighs them. */
function rateColumns(catalog: MetricCatalog): string[] {
  const columns = catalog.filter((metric) => metric.kind === 'rate' || metric.kind === 'latency').map((metric) => metric.column);
  const weights = catalog.filter((metric) => metric.kind === 'latency').map((metric) => columnOf(catalog, metric.weightedBy!));
  return [...new Set([...columns, ...weights])];
}

function rangeSums(catalog: MetricCatalog): string[] {
  const latencies = catalog.filter((metric) => metric.kind === 'latency');
  const sums = catalog.flatMap((metric) => {
    const c = metric.column;
    if (metric.kind === 'rate') return [`sum(${c}) AS ${sumOf(c)}`, `count(${c}) AS ${countOf(c)}`];
    if (metric.kind !== 'latency') return [];
    const weight = columnOf(catalog, metric.weightedBy!);
    return [`sum(${c} * ${weight}) AS ${sumOf(c)}`, `sum(CASE WHEN ${c} IS NOT NULL THEN ${weight} END) AS ${countOf(c)}`];
  });
  if (latencies.length === 0) return [...sums, 'NULL AS weighs', 'NULL AS histograms'];
  const weighsIn = `${columnOf(catalog, latencies[0]!.weightedBy!)} > 0 AND coalesce(${latencies.map((metric) => metric.column).join(', ')}) IS NOT NULL`;
  return [...sums, `sum(${weighsIn}) AS weighs`, `sum(${weighsIn} AND latency_source = 'histogram') AS histograms`];
}

/** Adds a sealed sample to the sums as the SQL of rangeSums would (NULLs left out). */
function addToSums(sums: RangeSums, sample: HourSample, catalog: MetricCatalog): void {
  const add = (key: string, value: number) => (sums[key] = (sums[key] ?? 0) + value);
  const latencies = catalog.filter((metric) => metric.kind === 'latency');
  sums.samples++;
  for (const metric of catalog) {
    const value = sample[metric.column] as number | null;
    if (value === null || (metric.kind !== 'rate' && metric.kind !== 'latency')) continue;
    const weight = metric.kind === 'rate' ? 1 : (sample[columnOf(catalog, metric.weightedBy!)] as number | null);
    if (weight === null) continue;
    add(sumOf(metric.column), value * (metric.kind === 'rate' ? 1 : weight));
    add(countOf(metric.column), weight);
  }
  if (latencies.length === 0) return;
  const weight = sample[columnOf(catalog, latencies[0]!.weightedBy!)] as number | null;
  if (weight === null) return;
  const weighsIn = weight > 0 && latencies.some((metric) => sample[metric.column] !== null) ? 1 : 0;
  add('weighs', weighsIn);
  add('histograms', weighsIn && sample.latency_source === 'histogram' ? 1 : 0);
}

function ratesOf(sums: RangeSums, catalog: MetricCatalog): RangeRates {
  const rates: RangeRates = { samples: sums.samples, latency_source: null };
  for (const metric of catalog) {
    if (metric.kind !== 'rate' && metric.kind !== 'latency') continue;
    const count = sums[countOf(metric.column)] ?? null;
    rates[metric.column] = count === null || count === 0 ? null : sums[sumOf(metric.column)]! / count;
  }
  if (sums.weighs !== null && sums.weighs > 0) rates.latency_source = sums.histograms === sums.weighs ? 'histogram' : 'estimate';
  return rates;
}
