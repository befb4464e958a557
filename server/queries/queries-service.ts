import type { Snapshot } from '../../common/agent-protocol/snapshot.js';
import type { DatabaseRow } from '../databases/database-row.js';
import type { Range } from '../metrics/metrics-schema.js';
import type { QueriesRepository, QueryRow, QuerySort, QueryTotals } from './queries-repository.js';

export type IngestedStatements = NonNullable<Snapshot['statements']>;

export class QueriesService {
  constructor(
    private readonly queries: QueriesRepository,
    /** How long statement intervals are kept: the raw samples' retention. */
    private readonly retentionMs: number,
  ) {}

  /**
   * Stores the statement deltas of one newly stored, reachable snapshot; the interval they cover
   * starts at the database's previous reachable sample. Runs inside the ingest transaction.
   */
  recordInterval(databaseId: string, ts: number, statements: IngestedStatements): void {
    this.queries.recordInterval(
      databaseId,
      ts,
      statements.map((statement) => ({
        fingerprint: statement.query_id_source,
        query: statement.query,
        calls: statement.calls,
        total_time_ms: statement.total_time_ms,
        max_time_ms: statement.max_time_ms,
        rows: statement.rows,
      })),
    );
  }

  /** The statements of a database over the range ending now, by the chosen measure. */
  top(database: DatabaseRow, range: Range, sort: QuerySort, limit: number, now: Date): QueryTotals[] {
    return this.queries.top(database.id, now.getTime() - range.ms, now.getTime(), sort, limit);
  }

  topByTotalTime(databaseId: string, fromMs: number, toMs: number, limit: number): QueryTotals[] {
    return this.queries.top(databaseId, fromMs, toMs, 'total_time', limit);
  }

  totals(databaseId: string, queryId: string, fromMs: number, toMs: number): QueryTotals | undefined {
    return this.queries.totals(databaseId, queryId, fromMs, toMs);
  }

  find(databaseId: string, queryId: string): QueryRow | undefined {
    return this.queries.findById(databaseId, queryId);
  }

  meanTime(queryId: string, fromMs: number, toMs: number): number | null {
    return this.queries.meanTime(queryId, fromMs, toMs);
  }

  /**
   * Retention follows the raw samples: drops about `limit` of a database's expired open intervals,
   * oldest first, and once none is left its expired hours and the statements nothing refers to any
   * more. True while more are left.
   */
  expire(databaseId: string, now: Date, limit: number): boolean {
    const cutoffMs = now.getTime() - this.retentionMs;
    if (this.queries.expireIntervals(databaseId, cutoffMs, limit) >= limit) return true;
    this.queries.expireHours(databaseId, cutoffMs);
    this.queries.expireStatements(databaseId, cutoffMs);
    return false;
  }

  /** After a rolled-back transaction: what the key cache may hold of it is forgotten. */
  rolledBack(): void {
    this.queries.forgetUncommitted();
  }
}
