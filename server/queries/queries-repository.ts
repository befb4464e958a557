import type { Db } from '../storage/open-database.js';

export interface QueryRow {
  id: string;
  database_id: string;
  fingerprint: string;
  query: string;
  first_seen_ts: number;
  last_seen_ts: number;
}

export interface StatementInterval {
  /** The engine's query id or digest. */
  fingerprint: string;
  query: string;
  calls: number;
  total_time_ms: number;
  max_time_ms: number | null;
  rows: number;
}

/** A statement's numbers summed over a range. */
export interface QueryTotals extends QueryRow {
  calls: number;
  total_time_ms: number;
  mean_time_ms: number;
  max_time_ms: number | null;
  rows: number;
  range_last_ts: number;
}

export const querySorts = ['total_time', 'mean_time', 'calls', 'max_time'] as const;
export type QuerySort = (typeof querySorts)[number];

const orderBy: Record<QuerySort, string> = {
  total_time: 'total_time_ms DESC',
  mean_time: 'mean_time_ms DESC',
  calls: 'calls DESC',
  max_time: 'max_time_ms IS NULL, max_time_ms DESC',
};

export class QueriesRepository {
  readonly #upsertQuery;
  readonly #intervalStart;
  readonly #insertSample;
  readonly #top;
  readonly #byId;
  readonly #one;
  readonly #mean;
  readonly #expireSamples;
  readonly #expireQueries;

  constructor(db: Db) {
    this.#upsertQuery = db.prepare<QueryRow>(
      `INSERT INTO queries (id, database_id, fingerprint, query, first_seen_ts, last_seen_ts)
       VALUES (@id, @database_id, @fingerprint, @query, @first_seen_ts, @last_seen_ts)
       ON CONFLICT (id) DO UPDATE SET
         query = CASE WHEN excluded.last_seen_ts >= queries.last_seen_ts THEN excluded.query ELSE queries.query END,
         first_seen_ts = min(queries.first_seen_ts, excluded.first_seen_ts),
         last_seen_ts = max(queries.last_seen_ts, excluded.last_seen_ts)`,
    );
    // Every reachable snapshot measured statements (an empty list when none ran): the previous one starts the interval.
    this.#intervalStart = db
      .prepare<[string, number], number | null>('SELECT max(ts) FROM samples WHERE database_id = ? AND ts < ? AND reachable = 1')
      .pluck();
    this.#insertSample = db.prepare<{
      database_id: string;
      ts: number;
      query_id: string;
      interval_start_ts: number | null;
      calls: number;
      total_time_ms: number;
      max_time_ms: number | null;
      rows: number;
    }>(
      `INSERT OR IGNORE INTO query_samples (database_id, ts, query_id, interval_start_ts, calls, total_time_ms, max_time_ms, rows)
       VALUES (@database_id, @ts, @query_id, @interval_start_ts, @calls, @total_time_ms, @max_time_ms, @rows)`,
    );
    const totals = (sort: QuerySort) =>
      db.prepare<{ database_id: string; from: number; to: number; limit: number }, QueryTotals>(
        `SELECT q.*, t.calls, t.total_time_ms, t.total_time_ms / t.calls AS mean_time_ms, t.max_time_ms, t.rows, t.range_last_ts
           FROM (SELECT query_id, sum(calls) AS calls, sum(total_time_ms) AS total_time_ms, max(max_time_ms) AS max_time_ms,
                        sum(rows) AS rows, max(ts) AS range_last_ts
                   FROM query_samples
                  WHERE database_id = @database_id AND ts > @from AND ts <= @to
                  GROUP BY query_id
                 HAVING sum(calls) > 0) t
           JOIN queries q ON q.id = t.query_id
          ORDER BY ${orderBy[sort]}, q.id
          LIMIT @limit`,
      );
    this.#top = Object.fromEntries(querySorts.map((sort) => [sort, totals(sort)])) as Record<QuerySort, ReturnType<typeof totals>>;
    this.#byId = db.prepare<[string, string], QueryRow>('SELECT * FROM queries WHERE database_id = ? AND id = ?');
    this.#one = db.prepare<{ database_id: string; query_id: string; from: number; to: number }, QueryTotals>(
      `SELECT q.*, t.calls, t.total_time_ms, t.total_time_ms / t.calls AS mean_time_ms, t.max_time_ms, t.rows, t.range_last_ts
         FROM (SELECT query_id, sum(calls) AS calls, sum(total_time_ms) AS total_time_ms, max(max_time_ms) AS max_time_ms,
                      sum(rows) AS rows, max(ts) AS range_last_ts
                 FROM query_samples
                WHERE database_id = @database_id AND query_id = @query_id AND ts > @from AND ts <= @to
               HAVING sum(calls) > 0) t
         JOIN queries q ON q.id = t.query_id`,
    );
    // Only intervals wholly inside the window: one that straddles its start mixes before and after.
    this.#mean = db
      .prepare<{ query_id: string; from: number; to: number }, number | null>(
        `SELECT sum(total_time_ms) / sum(calls) FROM query_samples
          WHERE query_id = @query_id AND ts > @from AND ts <= @to AND interval_start_ts >= @from AND calls > 0`,
      )
      .pluck();
    // Whole instants up to about `limit` rows: the intervals of one instant go together.
    this.#expireSamples = db.prepare<{ database_id: string; cutoff: number; limit: number }>(
      `DELETE FROM query_samples WHERE database_id = @database_id AND ts < @cutoff AND ts <= coalesce(
         (SELECT ts FROM query_samples WHERE database_id = @database_id AND ts < @cutoff ORDER BY ts LIMIT 1 OFFSET @limit - 1), @cutoff)`,
    );
    this.#expireQueries = db.prepare<[string, number]>(
      `DELETE FROM queries WHERE database_id = ? AND last_seen_ts < ?
         AND NOT EXISTS (SELECT 1 FROM query_samples s WHERE s.query_id = queries.id)`,
    );
  }

  /** Stores one interval's statements; call inside the transaction that stores the sample. */
  recordInterval(databaseId: string, ts: number, statements: readonly (StatementInterval & { id: string })[]): void {
    const ran = statements.filter((statement) => statement.calls > 0);
    if (ran.length === 0) return;
    const start = this.#intervalStart.get(databaseId, ts) ?? null;
    for (const statement of ran) {
      this.#upsertQuery.run({
        id: statement.id,
        database_id: databaseId,
        fingerprint: statement.fingerprint,
        query: statement.query,
        first_seen_ts: ts,
        last_seen_ts: ts,
      });
      this.#insertSample.run({
        database_id: databaseId,
        ts,
        query_id: statement.id,
        interval_start_ts: start,
        calls: statement.calls,
        total_time_ms: statement.total_time_ms,
        max_time_ms: statement.max_time_ms,
        rows: statement.rows,
      });
    }
  }

  top(databaseId: string, fromMs: number, toMs: number, sort: QuerySort, limit: number): QueryTotals[] {
    return this.#top[sort].all({ database_id: databaseId, from: fromMs, to: toMs, limit });
  }

  findById(databaseId: string, id: string): QueryRow | undefined {
    return this.#byId.get(databaseId, id);
  }

  /** One statement's numbers over (fromMs, toMs]; undefined when it did not run then. */
  totals(databaseId: string, queryId: string, fromMs: number, toMs: number): QueryTotals | undefined {
    return this.#one.get({ database_id: databaseId, query_id: queryId, from: fromMs, to: toMs });
  }

  /** Mean time per call over the intervals that lie wholly within (fromMs, toMs]; null when it did not run. */
  meanTime(queryId: string, fromMs: number, toMs: number): number | null {
    return this.#mean.get({ query_id: queryId, from: fromMs, to: toMs }) ?? null;
  }

  /** Drops a database's intervals older than the cutoff, oldest first, about `limit` rows at most; returns how many. */
  expireIntervals(databaseId: string, cutoffMs: number, limit: number): number {
    return this.#expireSamples.run({ database_id: databaseId, cutoff: cutoffMs, limit }).changes;
  }

  /** Drops a database's statements last seen before the cutoff that no interval refers to any more. */
  expireStatements(databaseId: string, cutoffMs: number): number {
    return this.#expireQueries.run(databaseId, cutoffMs).changes;
  }
}
