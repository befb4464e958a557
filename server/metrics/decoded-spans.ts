import type { Db } from '../storage/open-database.js';
import type { RollupRow } from './blocks/rollup-block.js';

/** A span of 60 buckets of one metric kept takes about 9 KiB of heap (13 KiB with two): some 20 MiB, the last day of 80 databases. */
const defaultMaxEntries = 2_000;

/**
 * The decoded rows of sealed rollup spans, by span and by what was asked of them (metrics, counts),
 * kept while the span's block stays as it was: a sealed block changes only when it is unsealed or
 * sealed again, which this connection does through RollupBlocks (it forgets the span then), or when
 * another connection commits (SQLite's data_version moves: everything is forgotten). A span that
 * is gone (expired, unsealed) is never asked for: readers list the spans that exist first. The rows
 * are shared between answers: readers must not change them. Oldest spans go first past the bound.
 * Rows are kept from a span's second read on: reads going round more spans than the bound (a
 * scan of every database) would otherwise keep rows that are gone before they are read again.
 */
export class DecodedSpans {
  readonly #bySpan = new Map<string, Map<string, readonly RollupRow[]>>();
  /** What was read once and not kept yet, as many at most as are kept. */
  readonly #readOnce = new Set<string>();
  readonly #dataVersion;
  #seenVersion: number | undefined;
  #entries = 0;

  constructor(
    db: Db,
    private readonly maxEntries = defaultMaxEntries,
  ) {
    this.#dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  }

  /** Forgets every span when another connection committed since the last call: once per read, before its spans. */
  checkOtherWriters(): void {
    const version = this.#dataVersion.get()!;
    if (version === this.#seenVersion) return;
    this.#seenVersion = version;
    this.#bySpan.clear();
    this.#readOnce.clear();
    this.#entries = 0;
  }

  /** The span's rows for `asked`, decoded by `decode` when not kept. */
  rows(span: string, asked: string, decode: () => RollupRow[]): readonly RollupRow[] {
    let bySpan = this.#bySpan.get(span);
    const kept = bySpan?.get(asked);
    if (kept !== undefined) return kept;
    const rows = decode();
    const key = `${span}\n${asked}`;
    if (!this.#readOnce.delete(key)) {
      if (this.#readOnce.size >= this.maxEntries) this.#readOnce.delete(this.#readOnce.values().next().value!);
      this.#readOnce.add(key);
      return rows;
    }
    while (this.#entries >= this.maxEntries && this.#bySpan.size > 0) this.#forgetOldest();
    if (bySpan === undefined) this.#bySpan.set(span, (bySpan = new Map()));
    bySpan.set(asked, rows);
    this.#entries++;
    return rows;
  }

  /** Forgets a span whose block this connection is replacing or deleting. */
  forget(span: string): void {
    this.#entries -= this.#bySpan.get(span)?.size ?? 0;
    this.#bySpan.delete(span);
  }

  #forgetOldest(): void {
    this.forget(this.#bySpan.keys().next().value!);
  }
}
