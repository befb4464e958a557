/**
 * Background work done in slices between requests: a pass is cut into slices that each return
 * within a time budget, so no pass holds the event loop for long (JobScheduler runs them).
 */
export interface BackgroundJob {
  /** Its `job` label on `/metrics`. */
  readonly name: string;
  /** A pass starts this often. */
  readonly periodMs: number;
  /**
   * Does the next part of the current pass (starting one when none is under way) and returns once
   * `budgetMs` is spent, after the unit of work under way; true while the pass has work left.
   * Each slice commits what it did: a process killed between slices loses nothing. A slice whose
   * work runs off the event loop (in a worker thread) returns a promise of that answer instead.
   */
  slice(now: Date, budgetMs: number): boolean | Promise<boolean>;
}

/** A job whose slices do their work on the event loop, each returning its answer at once. */
export interface SynchronousJob extends BackgroundJob {
  slice(now: Date, budgetMs: number): boolean;
}

/** Runs a pass to its end at once: for the operator's tools and tests, not for a serving process. */
export function runPass(job: SynchronousJob, now: Date): void {
  while (job.slice(now, Number.POSITIVE_INFINITY)) {
    // the next slice
  }
}
