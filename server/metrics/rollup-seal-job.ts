import type { BackgroundJob } from '../jobs/background-job.js';
import { passSlice } from '../jobs/steps-within.js';
import type { Transaction } from '../storage/open-database.js';
import { sealedResolutions, type RollupBlocks } from './rollup-blocks.js';
import type { RetainedDatabases } from './retention-job.js';

/** How long after its end a span waits before it is sealed: the rollup job's next passes fold what arrived in time. */
const sealGraceMs = 5 * 60_000;

interface Pass {
  nowMs: number;
  databases: string[];
  database: number;
  resolution: number;
  /** Where the search for the next span to seal starts in the current database and resolution. */
  fromMs: number;
}

/**
 * Seals closed rollup spans into blocks, as a background job: per database and sealed resolution,
 * each span with rows that ended `sealGraceMs` ago or more and holds no sample the rollup job has
 * not folded yet, oldest first, the spans of a slice in one transaction. An installation upgraded in place has its
 * existing rows sealed so, in slices, after start-up. A span a value too large for a block keeps its
 * rows. A late sample unseals its span (rollup-job.ts); a later pass seals it again.
 */
export class RollupSealJob implements BackgroundJob {
  readonly name = 'rollup_seal';
  readonly periodMs = 60_000;
  #pass: Pass | undefined;

  constructor(
    private readonly blocks: RollupBlocks,
    private readonly databases: RetainedDatabases,
    private readonly transaction: Transaction,
  ) {}

  slice(now: Date, budgetMs: number): boolean {
    const pass = (this.#pass ??= { nowMs: now.getTime(), databases: this.databases.ids(), database: 0, resolution: 0, fromMs: 0 });
    // A slice's spans in one transaction: a commit a slice, each span whole or not at all.
    return passSlice(
      this.transaction,
      budgetMs,
      () => {
        if (pass.database === pass.databases.length) return false;
        this.#step(pass);
        return true;
      },
      () => (this.#pass = undefined),
    );
  }

  /** Seals (or passes over) the next span of the current database and resolution, or moves on to the next of these. */
  #step(pass: Pass): void {
    const databaseId = pass.databases[pass.database]!;
    const resolution = sealedResolutions[pass.resolution]!;
    const closedBefore = Math.floor((pass.nowMs - sealGraceMs) / resolution.spanMs) * resolution.spanMs;
    const spanStart = this.blocks.oldestUnsealed(databaseId, resolution, pass.fromMs, closedBefore);
    if (spanStart === undefined) {
      pass.fromMs = 0;
      pass.resolution = (pass.resolution + 1) % sealedResolutions.length;
      if (pass.resolution === 0) pass.database++;
      return;
    }
    pass.fromMs = spanStart + resolution.spanMs;
    if (this.blocks.hasPending(databaseId, spanStart, pass.fromMs)) return;
    try {
      this.blocks.seal(databaseId, resolution, spanStart);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
    }
  }
}
