import { rollupResolutions } from '../../common/metric-catalog.js';
import type { BackgroundJob } from '../jobs/background-job.js';
import { passSlice } from '../jobs/steps-within.js';
import type { QueriesService } from '../queries/queries-service.js';
import type { Transaction } from '../storage/open-database.js';
import type { RetentionMs } from './retention.js';
import type { SamplesRepository } from './samples-repository.js';

/** The databases whose history is kept (the databases feature). */
export interface RetainedDatabases {
  ids(): string[];
}

/** Rows one delete takes at most: a few milliseconds' worth. */
const chunk = 500;
/** Sealed hours (blocks of about 360 samples) one delete takes at most. */
const hourChunk = 10;

interface Pass {
  nowMs: number;
  databases: string[];
  database: number;
  step: number;
}

/**
 * Drops what is past retention, as a background job: per database its raw samples (rows, then the
 * sealed hours that ended by the cutoff: a straddling hour waits, its reads filter by time), its buckets of
 * each rollup resolution and its slow-query intervals, then the batch ids (kept as long as raw
 * samples, the longest an agent retry can matter). Every delete is a range of a key that starts
 * with the database (or the receipt time), oldest first, in chunks.
 */
export class RetentionJob implements BackgroundJob {
  readonly name = 'retention';
  readonly periodMs = 60_000;
  /** One database's deletes in order; each is true while its range has rows left. */
  readonly #steps: ((databaseId: string, nowMs: number) => boolean)[];
  #pass: Pass | undefined;

  constructor(
    private readonly samples: SamplesRepository,
    queries: Pick<QueriesService, 'expire'>,
    private readonly databases: RetainedDatabases,
    private readonly retention: RetentionMs,
    private readonly transaction: Transaction,
  ) {
    this.#steps = [
      (databaseId, nowMs) => samples.expireRaw(databaseId, nowMs - retention.raw, chunk) >= chunk,
      (databaseId, nowMs) => samples.expireSealedHours(databaseId, nowMs - retention.raw, hourChunk) >= hourChunk,
      ...rollupResolutions.map(
        ({ name }) =>
          (databaseId: string, nowMs: number) => samples.expireRollups(databaseId, name, nowMs - retention[name], chunk) >= chunk,
      ),
      (databaseId, nowMs) => queries.expire(databaseId, new Date(nowMs), chunk),
    ];
  }

  slice(now: Date, budgetMs: number): boolean {
    const pass = (this.#pass ??= { nowMs: now.getTime(), databases: this.databases.ids(), database: 0, step: 0 });
    return passSlice(
      this.transaction,
      budgetMs,
      () => {
        // The databases done, batch ids are dropped until a delete finds fewer than a chunk.
        if (pass.database === pass.databases.length) return this.samples.expireBatches(pass.nowMs - this.retention.raw, chunk) >= chunk;
        if (this.#steps[pass.step]!(pass.databases[pass.database]!, pass.nowMs)) return true;
        pass.step = (pass.step + 1) % this.#steps.length;
        if (pass.step === 0) pass.database++;
        return true;
      },
      () => (this.#pass = undefined),
    );
  }
}
