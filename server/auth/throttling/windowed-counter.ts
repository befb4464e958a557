/** Keys tracked per counter; beyond, the least recently seen are forgotten (they can only get a fresh count). */
const maxTracked = 10_000;

export interface WindowCount {
  windowStartMs: number;
  count: number;
}

/** Counts per key in windows of `windowMs` that start at the key's first count, in memory. */
export class WindowedCounter {
  /** In order of last use, oldest first (a Map keeps insertion order). */
  readonly #counts = new Map<string, WindowCount>();

  constructor(private readonly windowMs: number) {}

  current(key: string, nowMs: number): WindowCount | undefined {
    const count = this.#counts.get(key);
    if (count === undefined || nowMs - count.windowStartMs >= this.windowMs) return undefined;
    return count;
  }

  add(key: string, nowMs: number, delta: number): void {
    const count = this.current(key, nowMs) ?? { windowStartMs: nowMs, count: 0 };
    count.count = Math.max(0, count.count + delta);
    this.#counts.delete(key);
    this.#counts.set(key, count);
    if (this.#counts.size > maxTracked) this.#counts.delete(this.#counts.keys().next().value!);
  }

  /** Unix seconds when the key's window ends (a key without a count: a window starting now). */
  resetAt(key: string, nowMs: number): number {
    return Math.ceil(((this.current(key, nowMs)?.windowStartMs ?? nowMs) + this.windowMs) / 1000);
  }
}
