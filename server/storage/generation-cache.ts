import type { Db } from './open-database.js';

/** The change counters of migrations 0006 and 0022: triggers move one on every write to the tables behind it. */
export type GenerationName = 'databases' | 'credentials' | 'alert_rules';

/**
 * Reads the change counters at most once per event-loop turn, unless this connection wrote since:
 * SQLite's total_changes() (which takes no lock) notices this process's writes at once, and a
 * commit through another connection (the CLI) is seen from the next turn on, as if the request
 * had arrived a moment earlier. A request thus pays the counters' locked read only now and then.
 */
export class TableGenerations {
  readonly #totalChanges;
  readonly #readAll;
  readonly #values = new Map<string, number>();
  #changesSeen = -1;
  #readThisTurn = false;

  #rollbacks = 0;

  constructor(db: Db) {
    this.#totalChanges = db.prepare<[], number>('SELECT total_changes()').pluck();
    this.#readAll = db.prepare<[], { name: string; generation: number }>('SELECT name, generation FROM table_generations');
  }

  current(name: GenerationName): number {
    const changes = this.#totalChanges.get()!;
    if (!this.#readThisTurn || changes !== this.#changesSeen) {
      for (const row of this.#readAll.all()) this.#values.set(row.name, row.generation);
      this.#changesSeen = changes;
      if (!this.#readThisTurn) {
        this.#readThisTurn = true;
        setImmediate(() => (this.#readThisTurn = false));
      }
    }
    return this.#values.get(name)!;
  }

  /**
   * Called when a transaction of this connection rolled back: it takes the counters back with it, so
   * the next commit can bring one to a value a cache saw inside the rolled-back transaction.
   */
  rolledBack(): void {
    this.#rollbacks++;
  }

  /** How many rollbacks there have been: a cache that saw another number starts over. */
  get rollbacks(): number {
    return this.#rollbacks;
  }
}

/** Values computed from the tables behind one change counter, kept until the counter moves. */
export class GenerationCache<V> {
  readonly #entries = new Map<string, V>();
  #seen = -1;
  #rollbacksSeen = 0;

  constructor(
    private readonly generations: TableGenerations,
    private readonly name: GenerationName,
    /** Bounds memory: at this size the cache starts over rather than tracking recency. */
    private readonly maxEntries = 1000,
  ) {}

  /** The cached value for `key`, or `compute()`'s, which is kept until the tables change. */
  get(key: string, compute: () => V): V {
    // Read before computing: a write landing in between moves the counter, so the next read recomputes.
    const generation = this.generations.current(this.name);
    const rollbacks = this.generations.rollbacks;
    if (generation !== this.#seen || rollbacks !== this.#rollbacksSeen) {
      this.#entries.clear();
      this.#seen = generation;
      this.#rollbacksSeen = rollbacks;
    }
    const cached = this.#entries.get(key);
    if (cached !== undefined) return cached;
    const value = compute();
    if (this.#entries.size >= this.maxEntries) this.#entries.clear();
    this.#entries.set(key, value);
    return value;
  }
}
