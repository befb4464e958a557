import { historyMetrics, type MetricCatalog, type MetricDefinition, type RollupResolution } from '../../common/metric-catalog.js';
import type { Db } from '../storage/open-database.js';
import { decodeRollupBlock, encodeRollupBlock, type RollupRow } from './blocks/rollup-block.js';
import { DecodedSpans } from './decoded-spans.js';
import { rollupColumns } from './rollup-columns.js';

/** The resolutions whose closed spans are sealed into blocks, with their span: 1m by the hour, 5m by the day. 1h and 1d stay rows (a few a day). */
export const sealedResolutions = [
  { name: '1m', ms: 60_000, spanMs: 3_600_000 },
  { name: '5m', ms: 300_000, spanMs: 86_400_000 },
] as const satisfies readonly { name: RollupResolution; ms: number; spanMs: number }[];

export type SealedResolution = (typeof sealedResolutions)[number];

export function sealedResolution(name: RollupResolution): SealedResolution | undefined {
  return sealedResolutions.find((resolution) => resolution.name === name);
}

/**
 * The sealed spans of the rollups (table `rollup_blocks`): a span of a sealed resolution of one
 * database is either its `sample_rollups` rows or one block, never both. Sealing and unsealing are
 * the callers' to run inside a transaction, with the span's other changes. Reads keep what they
 * decode (decoded-spans.ts): a connection's blocks are written through one RollupBlocks.
 */
export class RollupBlocks {
  readonly #byResolution;
  readonly #block;
  readonly #spansIn;
  readonly #decoded;
  readonly #insertBlock;
  readonly #deleteBlock;
  readonly #expire;
  readonly #oldestRow;
  readonly #pending;

  constructor(db: Db, catalog: MetricCatalog) {
    this.#decoded = new DecodedSpans(db);
    this.#byResolution = new Map(
      sealedResolutions.map((resolution) => {
        const metrics = historyMetrics(catalog, resolution.name);
        const columns = ['bucket', 'samples', ...rollupColumns(metrics)];
        const rowsOf = db.prepare<[string, number, number], RollupRow>(
          `SELECT ${columns.join(', ')} FROM sample_rollups WHERE database_id = ? AND resolution = '${resolution.name}' AND bucket >= ? AND bucket < ? ORDER BY bucket`,
        );
        const insertRow = db.prepare<(string | number | null)[]>(
          `INSERT INTO sample_rollups (database_id, resolution, ${columns.join(', ')}) VALUES (?, '${resolution.name}', ${columns.map(() => '?').join(', ')})`,
        );
        const deleteRows = db.prepare<[string, number, number]>(
          `DELETE FROM sample_rollups WHERE database_id = ? AND resolution = '${resolution.name}' AND bucket >= ? AND bucket < ?`,
        );
        return [resolution.name, { resolution, metrics, columns, rowsOf, insertRow, deleteRows }] as const;
      }),
    );
    this.#block = db.prepare<[string, string, number], Uint8Array>('SELECT block FROM rollup_blocks WHERE database_id = ? AND resolution = ? AND span_start = ?').pluck();
    // The key's index alone: the blocks are read only where not decoded already.
    this.#spansIn = db
      .prepare<[string, string, number, number], number>(
        'SELECT span_start FROM rollup_blocks WHERE database_id = ? AND resolution = ? AND span_start > ? AND span_start < ? ORDER BY span_start',
      )
      .pluck();
    this.#insertBlock = db.prepare<[string, string, number, Uint8Array]>('INSERT INTO rollup_blocks (database_id, resolution, span_start, block) VALUES (?, ?, ?, ?)');
    this.#deleteBlock = db.prepare<[string, string, number]>('DELETE FROM rollup_blocks WHERE database_id = ? AND resolution = ? AND span_start = ?');
    this.#expire = db.prepare<{ database_id: string; resolution: string; before: number; limit: number }>(
      `DELETE FROM rollup_blocks WHERE database_id = @database_id AND resolution = @resolution AND span_start < @before AND span_start <= coalesce(
         (SELECT span_start FROM rollup_blocks WHERE database_id = @database_id AND resolution = @resolution AND span_start < @before
          ORDER BY span_start LIMIT 1 OFFSET @limit - 1), @before)`,
    );
    this.#oldestRow = db
      .prepare<[string, string, number, number], number | null>('SELECT min(bucket) FROM sample_rollups WHERE database_id = ? AND resolution = ? AND bucket >= ? AND bucket < ?')
      .pluck();
    this.#pending = db
      .prepare<[string, number, number], number>(
        `SELECT EXISTS (SELECT 1 FROM samples_pending
           WHERE seq > (SELECT last_sample_id FROM rollup_watermark WHERE id = 1) AND database_id = ? AND ts >= ? AND ts < ?)`,
      )
      .pluck();
  }

  /** The start of the oldest span of a resolution with rows in [fromMs, beforeMs), if any. */
  oldestUnsealed(databaseId: string, resolution: SealedResolution, fromMs: number, beforeMs: number): number | undefined {
    const bucket = this.#oldestRow.get(databaseId, resolution.name, fromMs, beforeMs);
    return bucket === null || bucket === undefined ? undefined : Math.floor(bucket / resolution.spanMs) * resolution.spanMs;
  }

  /** Whether samples the rollup job has not folded yet fall in [fromMs, toMs). */
  hasPending(databaseId: string, fromMs: number, toMs: number): boolean {
    return this.#pending.get(databaseId, fromMs, toMs) === 1;
  }

  /** A span's rows as one block (none when it has no rows); throws RangeError for a value too large for a block, changing nothing. */
  seal(databaseId: string, resolution: SealedResolution, spanStart: number): void {
    const { metrics, rowsOf, deleteRows } = this.#by(resolution.name);
    const rows = rowsOf.all(databaseId, spanStart, spanStart + resolution.spanMs);
    if (rows.length === 0) return;
    const block = encodeRollupBlock(rows, { start: spanStart, width: resolution.ms }, metrics);
    this.#decoded.forget(spanKey(databaseId, resolution.name, spanStart));
    this.#insertBlock.run(databaseId, resolution.name, spanStart, block);
    deleteRows.run(databaseId, spanStart, spanStart + resolution.spanMs);
  }

  /** The sealed spans over these buckets of a resolution back to rows (those sealed). */
  unsealOver(databaseId: string, resolution: RollupResolution, buckets: readonly number[]): void {
    const sealed = sealedResolution(resolution);
    if (sealed === undefined) return;
    const { metrics, columns, insertRow } = this.#by(sealed.name);
    for (const spanStart of new Set(buckets.map((bucket) => Math.floor(bucket / sealed.spanMs) * sealed.spanMs))) {
      const block = this.#block.get(databaseId, resolution, spanStart);
      if (block === undefined) continue;
      for (const row of decodeRollupBlock(block, { start: spanStart, width: sealed.ms }, metrics, true)) {
        insertRow.run(databaseId, ...columns.map((column) => (column === 'bucket' ? row.ts! : row[column]!)));
      }
      this.#decoded.forget(spanKey(databaseId, resolution, spanStart));
      this.#deleteBlock.run(databaseId, resolution, spanStart);
    }
  }

  /**
   * The sealed buckets of a resolution starting in [fromMs, toMs), oldest first, with these metrics'
   * `_avg|_min|_max` (and `samples` and counts when `counted`): at least the first `limit` of them.
   * The rows may be shared with other reads: not to be changed.
   */
  read(databaseId: string, resolution: SealedResolution, metrics: readonly MetricDefinition[], fromMs: number, toMs: number, limit: number, counted: boolean): RollupRow[] {
    this.#decoded.checkOtherWriters();
    const asked = `${counted ? 'counted' : 'plain'} ${metrics.map((metric) => metric.column).join(',')}`;
    const rows: RollupRow[] = [];
    for (const spanStart of this.#spansIn.all(databaseId, resolution.name, fromMs - resolution.spanMs, toMs)) {
      const decode = () => decodeRollupBlock(this.#block.get(databaseId, resolution.name, spanStart)!, { start: spanStart, width: resolution.ms }, metrics, counted);
      for (const row of this.#decoded.rows(spanKey(databaseId, resolution.name, spanStart), asked, decode)) {
        if (row.ts! >= fromMs && row.ts! < toMs) rows.push(row);
      }
      if (rows.length >= limit) break;
    }
    return rows;
  }

  /** Drops up to about `limit` of a database's sealed spans of a resolution that end by the cutoff; returns how many. */
  expire(databaseId: string, resolution: SealedResolution, cutoffMs: number, limit: number): number {
    return this.#expire.run({ database_id: databaseId, resolution: resolution.name, before: cutoffMs - resolution.spanMs + 1, limit }).changes;
  }

  #by(resolution: SealedResolution['name']) {
    return this.#byResolution.get(resolution)!;
  }
}

function spanKey(databaseId: string, resolution: string, spanStart: number): string {
  return `${databaseId} ${resolution} ${spanStart}`;
}
