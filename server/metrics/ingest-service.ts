import type { BatchAck, SampleBatch } from '../../common/agent-protocol/sample-batch.js';
import type { Snapshot } from '../../common/agent-protocol/snapshot.js';
import { placeReader, type MetricCatalog } from '../../common/metric-catalog.js';
import type { AgentRow } from '../agents/agent-row.js';
import type { DatabaseRow } from '../databases/database-row.js';
import type { LoopTurns } from '../jobs/loop-turns.js';
import type { Transaction } from '../storage/open-database.js';
import type { SampleStore, SampleValues } from './sample-store.js';

/** Who sent a batch: a registered remote agent, or the server's own embedded agent. */
export type IngestSource = { kind: 'agent'; agent: AgentRow } | { kind: 'embedded' };

/** The databases feature, as ingest reads and updates it. */
export interface CollectedDatabases {
  findAnyOrg(id: string): DatabaseRow | undefined;
  /** The version and last error (secrets masked) of the newest collection, as of `at`. */
  recordCollection(row: DatabaseRow, snapshot: Snapshot, at: string): void;
}

/** What an agent's batch says of its spool; null where the agent did not say (an older agent). */
export interface SpoolReport {
  dropped_total: number | null;
  batches: number | null;
  /** When the oldest batch behind this one was appended, in the server's clock; null when none waits. */
  oldest_batch_at: string | null;
}

/** The agents feature, as ingest reports to it. */
export interface SpoolReports {
  recordSpool(agentId: string, report: SpoolReport): void;
}

/** The spool fields of a batch received at `now`; undefined when it has none. */
export function spoolReportOf(batch: SampleBatch, now: Date): SpoolReport | undefined {
  const { spool_dropped_total: droppedTotal, spool_batches: batches, spool_oldest_batch_age_seconds: ageSeconds } = batch;
  if (droppedTotal === undefined && batches === undefined) return undefined;
  return {
    dropped_total: droppedTotal ?? null,
    batches: batches ?? null,
    // The agent states an age, not a time: its clock need not agree with ours.
    oldest_batch_at: batches && ageSeconds !== undefined ? new Date(now.getTime() - ageSeconds * 1000).toISOString() : null,
  };
}

/**
 * What follows storing a batch, in this order, inside its transaction; each step is another
 * feature's service (wired in create-metrics.ts).
 */
export interface IngestSteps {
  /** Slow queries: the statement deltas of one stored, reachable snapshot (an empty list: no statement ran). */
  statements: { recordInterval(databaseId: string, ts: number, statements: NonNullable<Snapshot['statements']>): void };
  /** Optimizations: once per database and batch, the applied ones measured over the intervals its snapshots ended, [fromTs, toTs]. */
  optimizations: { measureAfter(databaseId: string, fromTs: number, toTs: number, now: Date): void };
  /** Alerts and status of the databases that got samples. */
  alerts: { evaluateDatabases(databaseIds: readonly string[], now: Date): void };
}

/** What a batch stored so far, over its slices. */
interface StoredBatch {
  stored: number;
  rejected: number;
  /** Per database, the span of its stored reachable snapshots: what optimizations measure. */
  intervals: Map<string, { fromTs: number; toTs: number }>;
  /** The databases that got a sample: the ones alerts evaluate. */
  databaseIds: Set<string>;
}

/** Samples newer than this are refused: a clock that far ahead would pin "latest" in the future. */
const maxClockSkewMs = 5 * 60_000;

/** About this much work per transaction: the event loop is never held much longer (#14 goal 2). */
export const defaultSliceBudgetMs = 10;

/**
 * The ingest pipeline of one batch, in slices of about `sliceBudgetMs` of work, each its own
 * transaction: (1) store samples, each stored reachable snapshot's statements recorded right after
 * its sample (2: the interval they close starts at the previous stored one), then per database the
 * newest as its latest collection. A last transaction marks the batch id, (3) measures
 * optimizations and (4) evaluates alerts over all the batch stored. So a batch cut short (a crash
 * between slices) is not marked: its resend skips the samples already stored (unique per database
 * and timestamp, their statements with them) and stores the rest. A batch id seen before stores
 * nothing and says so; one still being stored makes its retry wait, then say so. On the request
 * path (ingestInSlices) each slice runs in a turn of the loop that no other slice shares, the first
 * one too (not in the turn that parsed the body), and no commit waits for an fsync on the event
 * loop: the WAL is synced in the thread pool after the last one, before the answer.
 */
export class IngestService {
  /** Reads each catalog metric at its place in a snapshot, in the catalog's (and the insert's) order. */
  readonly #readers: ((snapshot: Snapshot) => number | null)[];
  /** The batches being stored, by source and batch id, until their last slice committed (or failed). */
  readonly #inFlight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly samples: SampleStore,
    private readonly databases: CollectedDatabases,
    private readonly agents: SpoolReports,
    private readonly steps: IngestSteps,
    /** How far back a sample may be: older ones would land in rollup buckets whose raw data has expired. */
    private readonly acceptableAgeMs: number,
    private readonly transaction: Transaction,
    /** For the slices: a batch is acknowledged only after the last, synced (`transaction`) or followed by `syncWal`. */
    private readonly unsyncedTransaction: Transaction,
    /** Makes every commit so far durable, off the event loop. */
    private readonly syncWal: () => Promise<void>,
    /** The turns of the loop the slices share with the background jobs'. */
    private readonly turns: LoopTurns,
    catalog: MetricCatalog,
    private readonly sliceBudgetMs = defaultSliceBudgetMs,
  ) {
    this.#readers = catalog.map((metric) => placeReader(metric.snapshot));
  }

  /** Stores a batch, yielding to the event loop between its slices; answers once they are all committed and durable. */
  async ingestInSlices(source: IngestSource, batch: SampleBatch, now: Date): Promise<BatchAck> {
    const key = `${sourceKeyOf(source)}\n${batch.batch_id}`;
    for (let first = this.#inFlight.get(key); first !== undefined; first = this.#inFlight.get(key)) await first.catch(() => undefined);
    const slices = this.#slices(source, batch, now, this.unsyncedTransaction);
    const storing = (async () => {
      let step;
      do {
        await this.turns.next();
        step = slices.next();
      } while (!step.done);
      // Acknowledged only once durable: the fsync off the event loop.
      await this.syncWal();
      return step.value;
    })();
    this.#inFlight.set(key, storing);
    try {
      return await storing;
    } finally {
      this.#inFlight.delete(key);
    }
  }

  /** Stores a batch, its slices one after the other without yielding, the last commit synced: for writers that are not serving requests. */
  ingest(source: IngestSource, batch: SampleBatch, now: Date): BatchAck {
    const slices = this.#slices(source, batch, now, this.transaction);
    let step = slices.next();
    while (!step.done) step = slices.next();
    return step.value;
  }

  /** Commits one slice of samples per step, then marks the batch and runs steps 3 and 4 in `last`; returns its ack. */
  *#slices(source: IngestSource, batch: SampleBatch, now: Date, last: Transaction): Generator<void, BatchAck> {
    const sourceKey = sourceKeyOf(source);
    const duplicate: BatchAck = { batch_id: batch.batch_id, stored: 0, duplicate: true, rejected: 0 };
    if (this.samples.batchSeen(sourceKey, batch.batch_id)) return duplicate;
    const stored: StoredBatch = { stored: 0, rejected: 0, intervals: new Map(), databaseIds: new Set() };
    for (let next = 0; next < batch.samples.length; yield) {
      next = this.unsyncedTransaction(() => this.#storeSlice(source, batch, next, now, stored));
    }
    return last((): BatchAck => {
      if (!this.samples.markBatch(sourceKey, batch.batch_id, now.getTime())) return duplicate;
      for (const [databaseId, { fromTs, toTs }] of stored.intervals) this.steps.optimizations.measureAfter(databaseId, fromTs, toTs, now);
      this.steps.alerts.evaluateDatabases([...stored.databaseIds], now);
      const spool = source.kind === 'agent' ? spoolReportOf(batch, now) : undefined;
      if (spool !== undefined && source.kind === 'agent') this.agents.recordSpool(source.agent.id, spool);
      return { batch_id: batch.batch_id, stored: stored.stored, duplicate: false, rejected: stored.rejected };
    });
  }

  /**
   * Steps 1 and 2 for the samples from `from` on, until the slice's budget is spent: those of the
   * databases this source collects, within the acceptable clock window. Returns where the next slice starts.
   */
  #storeSlice(source: IngestSource, batch: SampleBatch, from: number, now: Date, stored: StoredBatch): number {
    const nowMs = now.getTime();
    const deadline = performance.now() + this.sliceBudgetMs;
    // Per database: looked up once a slice, and only its newest stored snapshot updates "latest" and the status.
    const accepted = new Map<string, DatabaseRow | undefined>();
    const newest = new Map<string, { database: DatabaseRow; ts: number; snapshot: Snapshot }>();
    let next = from;
    while (next < batch.samples.length) {
      const { database_id, snapshot } = batch.samples[next++]!;
      const ts = Date.parse(snapshot.timestamp);
      if (!accepted.has(database_id)) {
        const database = this.databases.findAnyOrg(database_id);
        accepted.set(database_id, database !== undefined && collects(source, database) ? database : undefined);
      }
      const database = accepted.get(database_id);
      if (database === undefined || ts > nowMs + maxClockSkewMs || ts < nowMs - this.acceptableAgeMs) {
        stored.rejected++;
      } else if (this.samples.insert(this.#sampleValues(database_id, ts, snapshot))) {
        stored.stored++;
        stored.databaseIds.add(database_id);
        if (snapshot.reachable) {
          this.steps.statements.recordInterval(database_id, ts, snapshot.statements ?? []);
          const span = stored.intervals.get(database_id);
          stored.intervals.set(database_id, { fromTs: Math.min(span?.fromTs ?? ts, ts), toTs: Math.max(span?.toTs ?? ts, ts) });
        }
        if (ts > (newest.get(database_id)?.ts ?? -Infinity)) newest.set(database_id, { database, ts, snapshot });
      }
      if (performance.now() >= deadline) break;
    }
    this.#storeLatest(newest);
    return next;
  }

  /** Step 1, per database: its newest snapshot becomes the latest, unless a newer one is stored already. */
  #storeLatest(newest: Map<string, { database: DatabaseRow; ts: number; snapshot: Snapshot }>): void {
    for (const [databaseId, { database, ts, snapshot }] of newest) {
      const isLatest = this.samples.upsertLatest({
        database_id: databaseId,
        ts,
        reachable: Number(snapshot.reachable),
        error: snapshot.error ?? null,
        counters: JSON.stringify(snapshot.counters),
        // Named fields only: a newer agent's extra keys pass validation but are not ours to store.
        collectors: JSON.stringify(snapshot.collectors.map(({ name, duration_ms, success, error }) => ({ name, duration_ms, success, error }))),
      });
      if (isLatest) this.databases.recordCollection(database, snapshot, new Date(ts).toISOString());
    }
  }

  #sampleValues(databaseId: string, ts: number, snapshot: Snapshot): SampleValues {
    return [databaseId, ts, Number(snapshot.reachable), ...this.#readers.map((read) => read(snapshot)), snapshot.metrics.latency.source];
  }
}

function sourceKeyOf(source: IngestSource): string {
  return source.kind === 'agent' ? source.agent.id : 'embedded';
}

function collects(source: IngestSource, database: DatabaseRow): boolean {
  return source.kind === 'embedded'
    ? database.agent_id === null
    : database.agent_id === source.agent.id && database.org_id === source.agent.org_id;
}
