import type { Db } from './open-database.js';

/** The change counters of migration 0006: triggers move one on every write to the tables behind it. */
export type GenerationName = 'databases' | 'credentials';

/**
 * Values computed from the tables behind one change counter, kept until the counter moves. Each
 * read costs one indexed row; a write through any connection (the CLI too) empties the cache.
 */
export class GenerationCache<V> {
  readonly #generation;
  readonly #entries = new Map<string, V>();
  #seen = -1;

  constructor(
    db: Db,
    private readonly name: GenerationName,
    /** Bounds memory: at this size the cache starts over rather than tracking recency. */
    private readonly maxEntries = 1000,
  ) {
    this.#generation = db.prepare<[string], number>('SELECT generation FROM table_generations WHERE name = ?').pluck();
  }

  /** The cached value for `key`, or `compute()`'s, which is kept until the tables change. */
  get(key: string, compute: () => V): V {
    // Read before computing: a write landing in between moves the counter, so the next read recomputes.
    const generation = this.#generation.get(this.name)!;
    if (generation !== this.#seen) {
      this.#entries.clear();
      this.#seen = generation;
    }
    const cached = this.#entries.get(key);
    if (cached !== undefined) return cached;
    const value = compute();
    if (this.#entries.size >= this.maxEntries) this.#entries.clear();
    this.#entries.set(key, value);
    return value;
  }
}
