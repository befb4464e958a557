/**
 * The event loop's turns, shared by all work done in slices (ingest, the background jobs): each
 * `next()` resolves in a turn of its own, one waiter a turn, in the order they asked. Two slices
 * then never run in the same turn, so a turn holds at most one slice besides the requests it
 * serves (#14 goal 2); resolving each waiter with a plain setImmediate would run every slice
 * queued by then in one check phase, back to back.
 */
export class LoopTurns {
  readonly #waiting: (() => void)[] = [];
  #scheduled = false;

  /** Resolves in a later turn of the loop, in which no other waiter resumes. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#waiting.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#waiting.shift()!();
      // Queued from within the check phase, so it runs in the next turn, after that turn's I/O.
      this.#schedule();
    });
  }
}
