import type { BatchAck, SampleBatch } from '../../common/agent-protocol/sample-batch.js';
import type { Snapshot } from '../../common/agent-protocol/snapshot.js';
import { placeReader, type MetricCatalog } from '../../common/metric-catalog.js';
import type { AgentRow, AgentsRepository } from '../agents/agents-repository.js';
import type { DatabaseRow, DatabasesRepository, LastError } from '../databases/databases-repository.js';
import type { Db } from '../storage/open-database.js';
import type { SampleValues, SamplesRepository } from './samples-repository.js';

/** Who sent a batch: a registered remote agent, or the server's own embedded agent. */
export type IngestSource = { kind: 'agent'; agent: AgentRow } | { kind: 'embedded' };

/** Takes the statement deltas of the newly stored, reachable snapshots, inside the ingest transaction. */
export interface StatementSink {
  /** One snapshot's deltas; an empty list is an interval in which no statement ran. */
  record(databaseId: string, ts: number, statements: NonNullable<Snapshot['statements']>): void;
  /** Once per database and batch, after its snapshots: they ended intervals in [fromTs, toTs]. */
  recorded(databaseId: string, fromTs: number, toTs: number, now: Date): void;
}

/** Why a collection failed, as the database record keeps it (DatabasesService.lastErrorOf). */
export type LastErrorOf = (database: DatabaseRow, snapshot: Snapshot, at: string) => LastError | null;

/** Samples newer than this are refused: a clock that far ahead would pin "latest" in the future. */
const maxClockSkewMs = 5 * 60_000;

export class IngestService {
  /** Reads each catalog metric at its place in a snapshot, in the catalog's (and the insert's) order. */
  readonly #readers: ((snapshot: Snapshot) => number | null)[];

  constructor(
    private readonly db: Db,
    private readonly samples: SamplesRepository,
    private readonly databases: DatabasesRepository,
    private readonly lastErrorOf: LastErrorOf,
    private readonly agents: AgentsRepository,
    /** How far back a sample may be: older ones would land in rollup buckets whose raw data has expired. */
    private readonly acceptableAgeMs: number,
    /** Slow queries: the statement deltas of each stored snapshot. */
    private readonly statements: StatementSink,
    /** Alert evaluation of the databases that got samples, inside the batch's transaction. */
    private readonly afterStore: (databaseIds: readonly string[], now: Date) => void,
    catalog: MetricCatalog,
  ) {
    this.#readers = catalog.map((metric) => placeReader(metric.snapshot));
  }

  /** One transaction per batch; a batch id seen before stores nothing and says so. */
  ingest(source: IngestSource, batch: SampleBatch, now: Date): BatchAck {
    const nowMs = now.getTime();
    const sourceKey = source.kind === 'agent' ? source.agent.id : 'embedded';
    return this.db.transaction((): BatchAck => {
      if (!this.samples.markBatch(sourceKey, batch.batch_id, nowMs)) {
        return { batch_id: batch.batch_id, stored: 0, duplicate: true, rejected: 0 };
      }
      let stored = 0;
      let rejected = 0;
      // Per database: looked up once, and only its newest stored snapshot updates "latest" and the status.
      const accepted = new Map<string, DatabaseRow | undefined>();
      const newest = new Map<string, { ts: number; snapshot: Snapshot }>();
      const intervals = new Map<string, { fromTs: number; toTs: number }>();
      for (const { database_id, snapshot } of batch.samples) {
        const ts = Date.parse(snapshot.timestamp);
        if (!accepted.has(database_id)) {
          const database = this.databases.findAnyOrg(database_id);
          accepted.set(database_id, database !== undefined && collects(source, database) ? database : undefined);
        }
        if (accepted.get(database_id) === undefined || ts > nowMs + maxClockSkewMs || ts < nowMs - this.acceptableAgeMs) {
          rejected++;
          continue;
        }
        if (!this.samples.insert(this.#sampleValues(database_id, ts, snapshot))) continue;
        stored++;
        if (snapshot.reachable) {
          this.statements.record(database_id, ts, snapshot.statements ?? []);
          const span = intervals.get(database_id);
          intervals.set(database_id, { fromTs: Math.min(span?.fromTs ?? ts, ts), toTs: Math.max(span?.toTs ?? ts, ts) });
        }
        if (ts > (newest.get(database_id)?.ts ?? -Infinity)) newest.set(database_id, { ts, snapshot });
      }
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
        if (isLatest) {
          const lastError = this.lastErrorOf(accepted.get(databaseId)!, snapshot, new Date(ts).toISOString());
          this.databases.recordCollection(databaseId, snapshot.version, lastError);
        }
      }
      for (const [databaseId, { fromTs, toTs }] of intervals) this.statements.recorded(databaseId, fromTs, toTs, now);
      const touched = [...newest.keys()];
      this.afterStore(touched, now);
      if (source.kind === 'agent' && batch.spool_dropped_total !== undefined) {
        this.agents.setSpoolDropped(source.agent.id, batch.spool_dropped_total);
      }
      return { batch_id: batch.batch_id, stored, duplicate: false, rejected };
    })();
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
