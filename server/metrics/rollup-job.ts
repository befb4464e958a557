import { historyMetrics, rollupResolutions, type MetricCatalog, type MetricDefinition, type RollupResolution } from '../../common/metric-catalog.js';
import type { Db } from '../storage/open-database.js';
import type { RetentionMs } from './retention.js';

/** A rollup's `<column>_avg|_min|_max` columns of these metrics. */
export function rollupColumns(metrics: readonly MetricDefinition[]): string[] {
  return metrics.flatMap((metric) => ['avg', 'min', 'max'].map((stat) => `${metric.column}_${stat}`));
}

/**
 * Folds newly stored samples into every rollup resolution and applies retention. Each touched
 * bucket is recomputed from the raw samples, so samples arriving late (an agent's spool draining
 * after an outage) land in the right buckets with exact avg/min/max.
 */
export class RollupJob {
  readonly #pending;
  readonly #advance;
  readonly #recompute;
  readonly #expireRaw;
  readonly #expireRollups;
  readonly #expireBatches;

  constructor(
    private readonly db: Db,
    private readonly retention: RetentionMs,
    catalog: MetricCatalog,
  ) {
    this.#pending = db.prepare<[], { database_id: string; min_ts: number; max_ts: number; max_id: number }>(
      `SELECT database_id, min(ts) AS min_ts, max(ts) AS max_ts, max(id) AS max_id FROM samples
       WHERE id > (SELECT last_sample_id FROM rollup_watermark WHERE id = 1) GROUP BY database_id`,
    );
    this.#advance = db.prepare<[number]>('UPDATE rollup_watermark SET last_sample_id = max(last_sample_id, ?) WHERE id = 1');
    // Each resolution folds the metrics history keeps at it; better-sqlite3 binds JS numbers as REAL,
    // the CASTs keep the bucket arithmetic integer division.
    const recomputeAt = (resolution: RollupResolution) => {
      const metrics = historyMetrics(catalog, resolution);
      const aggregates = metrics.flatMap((metric) => [`avg(${metric.column})`, `min(${metric.column})`, `max(${metric.column})`]);
      return db.prepare<{ database_id: string; resolution: string; width: number; from: number; to: number }>(
        `INSERT OR REPLACE INTO sample_rollups (${['database_id', 'resolution', 'bucket', 'samples', ...rollupColumns(metrics)].join(', ')})
         SELECT ${['database_id', '@resolution', '(ts / CAST(@width AS INTEGER)) * @width', 'count(*)', ...aggregates].join(', ')}
         FROM samples WHERE database_id = @database_id AND ts >= @from AND ts < @to
         GROUP BY ts / CAST(@width AS INTEGER)`,
      );
    };
    this.#recompute = new Map(rollupResolutions.map(({ name }) => [name, recomputeAt(name)]));
    this.#expireRaw = db.prepare<[number]>('DELETE FROM samples WHERE ts < ?');
    this.#expireRollups = db.prepare<[string, number]>('DELETE FROM sample_rollups WHERE resolution = ? AND bucket < ?');
    this.#expireBatches = db.prepare<[number]>('DELETE FROM ingested_batches WHERE received_at < ?');
  }

  /** Folds samples stored since the last run; cheap when there are none, so readers call it before reading. */
  fold(): number {
    return this.db.transaction(() => {
      const pending = this.#pending.all();
      for (const range of pending) {
        for (const resolution of rollupResolutions) {
          const from = Math.floor(range.min_ts / resolution.ms) * resolution.ms;
          const to = (Math.floor(range.max_ts / resolution.ms) + 1) * resolution.ms;
          this.#recompute.get(resolution.name)!.run({ database_id: range.database_id, resolution: resolution.name, width: resolution.ms, from, to });
        }
        this.#advance.run(range.max_id);
      }
      return pending.length;
    })();
  }

  /** Drops what is past retention. Batch ids are kept as long as raw samples, the longest an agent retry can matter. */
  expire(nowMs: number): void {
    this.db.transaction(() => {
      this.#expireRaw.run(nowMs - this.retention.raw);
      this.#expireBatches.run(nowMs - this.retention.raw);
      for (const resolution of rollupResolutions) {
        this.#expireRollups.run(resolution.name, nowMs - this.retention[resolution.name]);
      }
    })();
  }
}
