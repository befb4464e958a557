import type { BackgroundJob } from '../jobs/background-job.js';
import { passSlice } from '../jobs/steps-within.js';
import type { Transaction } from '../storage/open-database.js';
import type { QueriesRepository } from './queries-repository.js';
import { minuteMs } from './statement-hour-codec.js';

/** The databases whose statements are kept (the databases feature). */
export interface StatementDatabases {
  ids(): string[];
}

/** An interval is folded once its minute ended this long ago: batches on their way are not cut. */
const settleMs = 2 * minuteMs;

interface Pass {
  upToMs: number;
  databases: string[];
  database: number;
}

/**
 * Folds statement intervals into hour rows of per-minute sums, as a background job: per database,
 * the open intervals of its closed minutes, an hour at a time. Each slice is one transaction, so a
 * process killed mid-pass keeps every interval exactly once (open or folded). Late intervals of an
 * hour already folded are merged into it by the next pass.
 */
export class StatementFoldJob implements BackgroundJob {
  readonly name = 'statement-fold';
  readonly periodMs = 5 * minuteMs;
  #pass: Pass | undefined;

  constructor(
    private readonly queries: QueriesRepository,
    private readonly databases: StatementDatabases,
    private readonly transaction: Transaction,
  ) {}

  slice(now: Date, budgetMs: number): boolean {
    const upToMs = Math.floor((now.getTime() - settleMs) / minuteMs) * minuteMs;
    const pass = (this.#pass ??= { upToMs, databases: this.databases.ids(), database: 0 });
    return passSlice(
      this.transaction,
      budgetMs,
      () => {
        const databaseId = pass.databases[pass.database];
        if (databaseId === undefined) return false;
        const oldest = this.queries.oldestOpen(databaseId);
        if (oldest !== null && oldest <= pass.upToMs) this.queries.foldHour(databaseId, oldest, pass.upToMs);
        else pass.database++;
        return true;
      },
      () => (this.#pass = undefined),
    );
  }
}
