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
   * Each slice commits what it did: a process killed between slices loses nothing.
   */
  slice(now: Date, budgetMs: number): boolean;
}

/** Runs a pass to its end at once: for the operator's tools and tests, not for a serving process. */
export function runPass(job: BackgroundJob, now: Date): void {
  while (job.slice(now, Number.POSITIVE_INFINITY)) {
    // the next slice
  }
}
