import { performance } from 'node:perf_hooks';
import { historyMetrics, rollupResolutions, type MetricCatalog } from '../../common/metric-catalog.js';
import type { BackgroundJob } from '../jobs/background-job.js';
import type { Db } from '../storage/open-database.js';
import { rollupColumns } from './rollup-columns.js';
import type { RollupBlocks } from './rollup-blocks.js';

/** Pending rows read per unit of a slice: a few milliseconds' worth. */
const scanChunk = 5_000;

interface Pass {
  /** The arrival range (from, to] (samples_pending.seq) of the samples this pass folds. */
  from: number;
  to: number;
  scannedTo: number;
  /** Per database, the start of every finest bucket a pending sample falls in. */
  touched: Map<string, Set<number>>;
  /** Databases whose buckets are still to fold, once the scan is done. */
  queue?: string[];
}

/**
 * Folds newly stored samples into the rollups, as a background job. A pass finds the samples
 * stored since the last one by arrival order (queued in samples_pending above the watermark), then per database recomputes each
 * 1 m bucket they fall in from the raw samples and each coarser bucket over them from the
 * resolution below (1m -> 5m -> 1h -> 1d), weighting means by their value counts. A sealed span
 * (rollup-blocks.ts) a recomputed bucket falls in goes back to rows first, in the same transaction:
 * the 5m step then reads the 1m rows of the hour the 1m step unsealed, the 1h step the 5m rows of
 * the day the 5m step unsealed; the seal job seals them again later. Late samples (an
 * agent's spool draining after an outage) so land in the right buckets with exact avg/min/max.
 * The watermark moves only when the whole pass is done: a pass cut short is done again.
 */
export class RollupJob implements BackgroundJob {
  readonly name = 'rollups';
  readonly periodMs = 15_000;
  readonly #watermark;
  readonly #newestQueued;
  readonly #pendingRows;
  readonly #advance;
  readonly #dropFolded;
  readonly #recompute;
  #pass: Pass | undefined;

  constructor(
    private readonly db: Db,
    catalog: MetricCatalog,
    private readonly blocks: RollupBlocks,
  ) {
    this.#watermark = db.prepare<[], number>('SELECT last_sample_id FROM rollup_watermark WHERE id = 1').pluck();
    this.#newestQueued = db.prepare<[], number | null>('SELECT max(seq) FROM samples_pending').pluck();
    this.#pendingRows = db.prepare<[number, number], { database_id: string; ts: number }>(
      'SELECT database_id, ts FROM samples_pending WHERE seq > ? AND seq <= ?',
    );
    this.#advance = db.prepare<[number]>('UPDATE rollup_watermark SET last_sample_id = ? WHERE id = 1');
    this.#dropFolded = db.prepare<[number]>('DELETE FROM samples_pending WHERE seq <= ?');
    this.#recompute = rollupResolutions.map((resolution, level) => {
      const metrics = historyMetrics(catalog, resolution.name);
      const finer = rollupResolutions[level - 1];
      const missing = finer === undefined ? undefined : metrics.find((metric) => !metric.history.includes(finer.name));
      if (missing !== undefined) throw new TypeError(`${missing.path} is kept at ${resolution.name} but not at ${finer!.name}`);
      const head = `INSERT OR REPLACE INTO sample_rollups (${['database_id', 'resolution', 'bucket', 'samples', ...rollupColumns(metrics)].join(', ')})`;
      const bucket = (column: string) => `(${column} / ${resolution.ms}) * ${resolution.ms}`;
      const statement =
        finer === undefined
          ? `${head}
             SELECT ${['database_id', `'${resolution.name}'`, bucket('ts'), 'count(*)', ...metrics.flatMap(({ column: c }) => [`avg(${c})`, `min(${c})`, `max(${c})`, `count(${c})`])].join(', ')}
             FROM samples WHERE database_id = ? AND ts >= ? AND ts < ? GROUP BY ts / ${resolution.ms}`
          : `${head}
             SELECT ${['database_id', `'${resolution.name}'`, bucket('bucket'), 'sum(samples)', ...metrics.flatMap(({ column: c }) => {
               // Buckets folded before value counts were kept weigh by their sample count.
               const n = `coalesce(${c}_count, CASE WHEN ${c}_avg IS NULL THEN 0 ELSE samples END)`;
               return [`sum(${c}_avg * ${n}) / nullif(sum(${n}), 0)`, `min(${c}_min)`, `max(${c}_max)`, `sum(${n})`];
             })].join(', ')}
             FROM sample_rollups WHERE database_id = ? AND resolution = '${finer.name}' AND bucket >= ? AND bucket < ?
             GROUP BY bucket / ${resolution.ms}`;
      return { resolution: resolution.name, width: resolution.ms, statement: db.prepare<[string, number, number]>(statement) };
    });
  }

  slice(_now: Date, budgetMs: number): boolean {
    const deadline = performance.now() + budgetMs;
    try {
      const pass = (this.#pass ??= this.#begin());
      while (pass.scannedTo < pass.to) {
        this.#scan(pass);
        if (performance.now() >= deadline) return true;
      }
      return this.db.transaction(() => {
        const queue = (pass.queue ??= [...pass.touched.keys()]);
        for (let databaseId = queue.pop(); databaseId !== undefined; databaseId = queue.pop()) {
          this.#fold(databaseId, pass.touched.get(databaseId)!);
          if (queue.length > 0 && performance.now() >= deadline) return true;
        }
        if (pass.to !== pass.from) {
          this.#advance.run(pass.to);
          this.#dropFolded.run(pass.to);
        }
        this.#pass = undefined;
        return false;
      })();
    } catch (error) {
      this.#pass = undefined;
      throw error;
    }
  }

  #begin(): Pass {
    const from = this.#watermark.get()!;
    const to = Math.max(from, this.#newestQueued.get() ?? 0);
    return { from, to, scannedTo: from, touched: new Map() };
  }

  #scan(pass: Pass): void {
    const finest = rollupResolutions[0].ms;
    const next = Math.min(pass.to, pass.scannedTo + scanChunk);
    for (const { database_id, ts } of this.#pendingRows.iterate(pass.scannedTo, next)) {
      let buckets = pass.touched.get(database_id);
      if (buckets === undefined) pass.touched.set(database_id, (buckets = new Set()));
      buckets.add(Math.floor(ts / finest) * finest);
    }
    pass.scannedTo = next;
  }

  /** Every bucket over these finest buckets, finest resolution first; each run of adjacent buckets in one statement. */
  #fold(databaseId: string, finestBuckets: Set<number>): void {
    let buckets = [...finestBuckets];
    for (const { resolution, width, statement } of this.#recompute) {
      buckets = [...new Set(buckets.map((start) => Math.floor(start / width) * width))].sort((a, b) => a - b);
      this.blocks.unsealOver(databaseId, resolution, buckets);
      for (let i = 0; i < buckets.length; ) {
        let end = i + 1;
        while (end < buckets.length && buckets[end] === buckets[end - 1]! + width) end++;
        statement.run(databaseId, buckets[i]!, buckets[end - 1]! + width);
        i = end;
      }
    }
  }
}
