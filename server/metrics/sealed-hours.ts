import type { MetricCatalog } from '../../common/metric-catalog.js';
import type { Db } from '../storage/open-database.js';
import { decodeHourBlock, encodeHourBlock, hourMs, type HourSample } from './blocks/hour-block.js';

/** The start of the hour a time falls in. */
export function hourOf(ms: number): number {
  return Math.floor(ms / hourMs) * hourMs;
}

/**
 * The sealed database-hours of raw samples (`sample_hours`): each one block holding what were the
 * hour's rows in `samples`. An hour is either rows or a block, never both: sealing deletes the rows
 * and unsealing (a late sample) deletes the block, each in the caller's transaction.
 */
export class SealedHours {
  /** Per database, an hour no sealed hour is newer than (an upper bound: a rolled back seal only costs a look-up). */
  readonly #newestSealed = new Map<string, number>();
  readonly #newestHour;
  readonly #block;
  readonly #insert;
  readonly #delete;
  readonly #inRange;
  readonly #before;
  readonly #expire;

  constructor(
    db: Db,
    private readonly catalog: MetricCatalog,
  ) {
    this.#newestHour = db.prepare<[string], number | null>('SELECT max(hour) FROM sample_hours WHERE database_id = ?').pluck();
    this.#block = db.prepare<[string, number], Buffer>('SELECT block FROM sample_hours WHERE database_id = ? AND hour = ?').pluck();
    this.#insert = db.prepare<[string, number, Uint8Array]>('INSERT INTO sample_hours (database_id, hour, block) VALUES (?, ?, ?)');
    this.#delete = db.prepare<[string, number]>('DELETE FROM sample_hours WHERE database_id = ? AND hour = ?');
    this.#inRange = db.prepare<[string, number, number], { hour: number; block: Buffer }>(
      'SELECT hour, block FROM sample_hours WHERE database_id = ? AND hour > ? AND hour < ? ORDER BY hour',
    );
    this.#before = db.prepare<[string, number, number], { hour: number; block: Buffer }>(
      'SELECT hour, block FROM sample_hours WHERE database_id = ? AND hour > ? AND hour < ? ORDER BY hour DESC',
    );
    this.#expire = db.prepare<[string, number, number]>(
      'DELETE FROM sample_hours WHERE rowid IN (SELECT rowid FROM sample_hours WHERE database_id = ? AND hour <= ? ORDER BY hour LIMIT ?)',
    );
  }

  /** Stores a database-hour's samples (oldest first, every catalog column) as its block. */
  seal(databaseId: string, hour: number, samples: readonly HourSample[]): void {
    this.#insert.run(databaseId, hour, encodeHourBlock(hour, samples, this.catalog));
    const newest = this.#newestSealed.get(databaseId);
    if (newest !== undefined && hour > newest) this.#newestSealed.set(databaseId, hour);
  }

  /** The samples of the sealed hour `ts` falls in (every catalog column), undefined when that hour is not sealed. */
  hourAt(databaseId: string, ts: number): HourSample[] | undefined {
    const hour = hourOf(ts);
    let newest = this.#newestSealed.get(databaseId);
    if (newest === undefined) this.#newestSealed.set(databaseId, (newest = this.#newestHour.get(databaseId) ?? -Infinity));
    if (hour > newest) return undefined;
    const block = this.#block.get(databaseId, hour);
    return block === undefined ? undefined : decodeHourBlock(hour, block, this.catalog.map((metric) => metric.column));
  }

  /** Deletes a sealed hour's block (its samples having gone back to rows). */
  unseal(databaseId: string, ts: number): void {
    this.#delete.run(databaseId, hourOf(ts));
  }

  /** The samples in [from, to) with these columns, oldest first; stops after the block that brings them to `limit`. */
  samples(databaseId: string, fromMs: number, toMs: number, columns: readonly string[], limit = Infinity): HourSample[] {
    const found: HourSample[] = [];
    for (const { hour, block } of this.#inRange.iterate(databaseId, fromMs - hourMs, toMs)) {
      for (const sample of decodeHourBlock(hour, block, columns)) if (sample.ts >= fromMs && sample.ts < toMs) found.push(sample);
      if (found.length >= limit) break;
    }
    return found;
  }

  /** The newest sealed sample before `beforeMs` that passes `accept`, among the hours after `afterMs` (newest first). */
  newest(databaseId: string, afterMs: number, beforeMs: number, columns: readonly string[], accept: (sample: HourSample) => boolean): HourSample | undefined {
    for (const { hour, block } of this.#before.iterate(databaseId, afterMs, beforeMs)) {
      const samples = decodeHourBlock(hour, block, columns);
      for (let index = samples.length - 1; index >= 0; index--) {
        const sample = samples[index]!;
        if (sample.ts < beforeMs && accept(sample)) return sample;
      }
    }
    return undefined;
  }

  /** Drops up to `limit` of a database's sealed hours that ended by the cutoff, oldest first; returns how many. */
  expire(databaseId: string, cutoffMs: number, limit: number): number {
    return this.#expire.run(databaseId, cutoffMs - hourMs, limit).changes;
  }
}
