import type { BackgroundJob } from '../jobs/background-job.js';
import { passSlice } from '../jobs/steps-within.js';
import type { Transaction } from '../storage/open-database.js';
import type { RetainedDatabases } from './retention-job.js';
import type { SamplesRepository } from './samples-repository.js';

/** How long after its end an hour stays rows: the samples of its last interval may still be on their way. */
export const sealGraceMs = 5 * 60_000;

/**
 * Hours one pass seals at most (a few seconds of work): the scheduler runs one pass at a time, so
 * sealing an upgraded state's backlog in one pass would hold up the rollups and alert evaluation.
 * The next pass, a period later, goes on; a fleet adds one hour per database per hour.
 */
const defaultMaxSealsPerPass = 500;

interface Pass {
  endedByMs: number;
  databases: string[];
  database: number;
  seals: number;
}

/**
 * Seals each database's closed hours of raw samples into blocks (sealed-hours.ts), as a background
 * job: per database, its oldest hour of rows while that hour ended at least the grace ago and the
 * rollup job has folded it. Each slice is a transaction: a seal replaces the rows with the block at
 * once. An upgraded state directory's rows are sealed by the passes after start-up, a bounded number
 * of hours each.
 */
export class SealJob implements BackgroundJob {
  readonly name = 'seal';
  readonly periodMs = 60_000;
  #pass: Pass | undefined;

  constructor(
    private readonly samples: SamplesRepository,
    private readonly databases: RetainedDatabases,
    private readonly transaction: Transaction,
    private readonly maxSealsPerPass = defaultMaxSealsPerPass,
  ) {}

  slice(now: Date, budgetMs: number): boolean {
    const pass = (this.#pass ??= { endedByMs: now.getTime() - sealGraceMs, databases: this.databases.ids(), database: 0, seals: 0 });
    return passSlice(
      this.transaction,
      budgetMs,
      () => {
        if (pass.database === pass.databases.length || pass.seals === this.maxSealsPerPass) return false;
        if (this.samples.sealOldestHour(pass.databases[pass.database]!, pass.endedByMs)) pass.seals++;
        else pass.database++;
        return true;
      },
      () => (this.#pass = undefined),
    );
  }
}
