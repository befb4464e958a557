import type { BatchAck, SampleBatch } from '../../common/agent-protocol/sample-batch.js';
import type { Snapshot } from '../../common/agent-protocol/snapshot.js';
import { placeReader, type MetricCatalog } from '../../common/metric-catalog.js';
import type { AgentRow } from '../agents/agent-row.js';
import type { DatabaseRow } from '../databases/database-row.js';
import type { Transaction } from '../storage/open-database.js';
import type { SampleValues, SamplesRepository } from './samples-repository.js';

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

/** What one batch stored, per database: the newest snapshot and the span of the reachable ones. */
interface StoredBatch {
  stored: number;
  rejected: number;
  databases: Map<string, DatabaseRow>;
  newest: Map<string, { ts: number; snapshot: Snapshot }>;
  intervals: Map<string, { fromTs: number; toTs: number }>;
}

/** Samples newer than this are refused: a clock that far ahead would pin "latest" in the future. */
const maxClockSkewMs = 5 * 60_000;

/**
 * The ingest pipeline of one batch, in one transaction: (1) store its samples, each stored reachable
 * snapshot's statements recorded right after its sample (2: the interval they close starts at the
 * previous stored one), then the newest as the database's latest collection; (3) measure
 * optimizations; (4) evaluate alerts. A batch id seen before stores nothing and says so.
 */
export class IngestService {
  /** Reads each catalog metric at its place in a snapshot, in the catalog's (and the insert's) order. */
  readonly #readers: ((snapshot: Snapshot) => number | null)[];

  constructor(
    private readonly samples: SamplesRepository,
    private readonly databases: CollectedDatabases,
    private readonly agents: SpoolReports,
    private readonly steps: IngestSteps,
    /** How far back a sample may be: older ones would land in rollup buckets whose raw data has expired. */
    private readonly acceptableAgeMs: number,
    private readonly transaction: Transaction,
    catalog: MetricCatalog,
  ) {
    this.#readers = catalog.map((metric) => placeReader(metric.snapshot));
  }

  ingest(source: IngestSource, batch: SampleBatch, now: Date): BatchAck {
    const sourceKey = source.kind === 'agent' ? source.agent.id : 'embedded';
    return this.transaction((): BatchAck => {
      if (!this.samples.markBatch(sourceKey, batch.batch_id, now.getTime())) {
        return { batch_id: batch.batch_id, stored: 0, duplicate: true, rejected: 0 };
      }
      const stored = this.#storeSamples(source, batch, now);
      this.#storeLatest(stored);
      for (const [databaseId, { fromTs, toTs }] of stored.intervals) this.steps.optimizations.measureAfter(databaseId, fromTs, toTs, now);
      this.steps.alerts.evaluateDatabases([...stored.newest.keys()], now);
      const spool = source.kind === 'agent' ? spoolReportOf(batch, now) : undefined;
      if (spool !== undefined && source.kind === 'agent') this.agents.recordSpool(source.agent.id, spool);
      return { batch_id: batch.batch_id, stored: stored.stored, duplicate: false, rejected: stored.rejected };
    });
  }

  /** Steps 1 and 2: the samples of the databases this source collects, within the acceptable clock window. */
  #storeSamples(source: IngestSource, batch: SampleBatch, now: Date): StoredBatch {
    const nowMs = now.getTime();
    const result: StoredBatch = { stored: 0, rejected: 0, databases: new Map(), newest: new Map(), intervals: new Map() };
    // Per database: looked up once, and only its newest stored snapshot updates "latest" and the status.
    const accepted = new Map<string, DatabaseRow | undefined>();
    for (const { database_id, snapshot } of batch.samples) {
      const ts = Date.parse(snapshot.timestamp);
      if (!accepted.has(database_id)) {
        const database = this.databases.findAnyOrg(database_id);
        accepted.set(database_id, database !== undefined && collects(source, database) ? database : undefined);
      }
      const database = accepted.get(database_id);
      if (database === undefined || ts > nowMs + maxClockSkewMs || ts < nowMs - this.acceptableAgeMs) {
        result.rejected++;
        continue;
      }
      if (!this.samples.insert(this.#sampleValues(database_id, ts, snapshot))) continue;
      result.stored++;
      result.databases.set(database_id, database);
      if (snapshot.reachable) {
        this.steps.statements.recordInterval(database_id, ts, snapshot.statements ?? []);
        const span = result.intervals.get(database_id);
        result.intervals.set(database_id, { fromTs: Math.min(span?.fromTs ?? ts, ts), toTs: Math.max(span?.toTs ?? ts, ts) });
      }
      if (ts > (result.newest.get(database_id)?.ts ?? -Infinity)) result.newest.set(database_id, { ts, snapshot });
    }
    return result;
  }

  /** Step 1, per database: its newest snapshot becomes the latest, unless a newer one is stored already. */
  #storeLatest({ databases, newest }: StoredBatch): void {
    for (const [databaseId, { ts, snapshot }] of newest) {
      const isLatest = this.samples.upsertLatest({
        database_id: databaseId,
        ts,
        reachable: Number(snapshot.reachable),
        error: snapshot.error ?? null,
        counters: JSON.stringify(snapshot.counters),
        // Named fields only: a newer agent's extra keys pass validation but are not ours to store.
        collectors: JSON.stringify(snapshot.collectors.map(({ name, duration_ms, success, error }) => ({ name, duration_ms, success, error }))),
      });
      if (isLatest) this.databases.recordCollection(databases.get(databaseId)!, snapshot, new Date(ts).toISOString());
    }
  }

  #sampleValues(databaseId: string, ts: number, snapshot: Snapshot): SampleValues {
    return [databaseId, ts, Number(snapshot.reachable), ...this.#readers.map((read) => read(snapshot)), snapshot.metrics.latency.source];
  }
}

function collects(source: IngestSource, database: DatabaseRow): boolean {
  return source.kind === 'embedded'
    ? database.agent_id === null
    : database.agent_id === source.agent.id && database.org_id === source.agent.org_id;
}
