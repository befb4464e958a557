import type { Db } from '../storage/open-database.js';
import { queryIdOf } from './query-id.js';
import {
  decodeStatementHour,
  encodeStatementHour,
  hourMs,
  hourOf,
  mergeStatementMinutes,
  minuteMs,
  minuteOf,
  type StatementMinute,
} from './statement-hour-codec.js';

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

type Sums = Pick<QueryTotals, 'calls' | 'total_time_ms' | 'max_time_ms' | 'rows' | 'range_last_ts'>;

const descending = (a: number, b: number) => b - a;
const order: Record<QuerySort, (a: QueryTotals, b: QueryTotals) => number> = {
  total_time: (a, b) => descending(a.total_time_ms, b.total_time_ms),
  mean_time: (a, b) => descending(a.mean_time_ms, b.mean_time_ms),
  calls: (a, b) => descending(a.calls, b.calls),
  // Unknown maxima last.
  max_time: (a, b) => Number(a.max_time_ms === null) - Number(b.max_time_ms === null) || descending(a.max_time_ms ?? 0, b.max_time_ms ?? 0),
};

interface KnownStatement {
  key: number;
  query: string;
  firstSeen: number;
  /** The newest interval end seen with this text: a newer one replaces the text. */
  newest: number;
}

/**
 * Statements the key cache holds at most: 1.5 times issue #14's fleet (10,000 databases of 20
 * statements each), so that fleet never looks a known statement up.
 */
export const defaultMaxKnownStatements = 300_000;

/** The raw samples (the metrics feature), as statement intervals read them. */
export interface ReachedSamples {
  /** The newest sample before `beforeMs` whose collection reached the database (ms). */
  lastReachedBefore(databaseId: string, beforeMs: number): number | undefined;
}

/**
 * Slow-query storage. Statement intervals arrive as rows keyed by the statement's integer key
 * (open intervals); the fold job moves each database's closed minutes into one row per hour of
 * per-minute sums (statement-hour-codec.ts). Reads add both up. The statements' keys are cached, so
 * ingest neither hashes nor writes a statement it knows; `forgetUncommitted()` after a rollback.
 * Over its size the cache forgets whole databases, the least recently collected first.
 */
export class QueriesRepository {
  readonly #known = new Map<string, Map<string, KnownStatement>>();
  #knownCount = 0;
  readonly #statementByFingerprint;
  readonly #insertStatement;
  readonly #updateStatement;
  readonly #insertInterval;
  readonly #statements;
  readonly #byId;
  readonly #keyOf;
  readonly #hours;
  readonly #openSums;
  readonly #openMean;
  readonly #oldestOpen;
  readonly #openOfHour;
  readonly #hour;
  readonly #upsertHour;
  readonly #deleteOpen;
  readonly #lastSeen;
  readonly #expireOpen;
  readonly #expireHours;
  readonly #expireStatements;

  constructor(
    db: Db,
    private readonly samples: ReachedSamples,
    private readonly maxKnownStatements = defaultMaxKnownStatements,
  ) {
    this.#statementByFingerprint = db.prepare<[string, string], { key: number; query: string; first_seen_ts: number; last_seen_ts: number }>(
      'SELECT key, query, first_seen_ts, last_seen_ts FROM statements WHERE database_id = ? AND fingerprint = ?',
    );
    this.#insertStatement = db.prepare<Omit<QueryRow, 'last_seen_ts'>>(
      `INSERT INTO statements (id, database_id, fingerprint, query, first_seen_ts, last_seen_ts)
       VALUES (@id, @database_id, @fingerprint, @query, @first_seen_ts, @first_seen_ts)`,
    );
    this.#updateStatement = db.prepare<{ key: number; query: string; first_seen_ts: number }>(
      'UPDATE statements SET query = @query, first_seen_ts = min(first_seen_ts, @first_seen_ts) WHERE key = @key',
    );
    this.#insertInterval = db.prepare<[string, number, number, number | null, number, number, number | null, number]>(
      `INSERT OR IGNORE INTO statement_intervals (database_id, ts, statement_key, interval_start_ts, calls, total_time_ms, max_time_ms, rows)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#statements = db.prepare<[string], QueryRow & { key: number }>(
      'SELECT key, id, database_id, fingerprint, query, first_seen_ts, last_seen_ts FROM statements WHERE database_id = ?',
    );
    this.#byId = db.prepare<[string, string], QueryRow>(
      'SELECT id, database_id, fingerprint, query, first_seen_ts, last_seen_ts FROM statements WHERE database_id = ? AND id = ?',
    );
    this.#keyOf = db.prepare<[string], { key: number; database_id: string }>('SELECT key, database_id FROM statements WHERE id = ?');
    this.#hours = db.prepare<[string, number, number], { hour: number; minutes: Buffer }>(
      'SELECT hour, minutes FROM statement_hours WHERE database_id = ? AND hour > ? AND hour < ?',
    );
    this.#openSums = db.prepare<{ database_id: string; from: number; to: number; key: number | null }, Sums & { key: number }>(
      `SELECT statement_key AS key, sum(calls) AS calls, sum(total_time_ms) AS total_time_ms, max(max_time_ms) AS max_time_ms,
              sum(rows) AS rows, max(ts) AS range_last_ts
         FROM statement_intervals
        WHERE database_id = @database_id AND ts > @from AND ts <= @to AND (@key IS NULL OR statement_key = @key)
        GROUP BY statement_key`,
    );
    this.#openMean = db.prepare<{ database_id: string; key: number; from: number; to: number }, { calls: number | null; total: number | null }>(
      `SELECT sum(calls) AS calls, sum(total_time_ms) AS total FROM statement_intervals
        WHERE database_id = @database_id AND ts > @from AND ts <= @to AND statement_key = @key AND interval_start_ts >= @from AND calls > 0`,
    );
    this.#oldestOpen = db.prepare<[string], number | null>('SELECT min(ts) FROM statement_intervals WHERE database_id = ?').pluck();
    this.#openOfHour = db.prepare<[string, number, number], { ts: number; key: number; start: number | null; calls: number; total: number; max: number | null; rows: number }>(
      `SELECT ts, statement_key AS key, interval_start_ts AS start, calls, total_time_ms AS total, max_time_ms AS max, rows
         FROM statement_intervals WHERE database_id = ? AND ts > ? AND ts <= ?`,
    );
    this.#hour = db.prepare<[string, number], Buffer>('SELECT minutes FROM statement_hours WHERE database_id = ? AND hour = ?').pluck();
    this.#upsertHour = db.prepare<[string, number, Buffer]>(
      'INSERT INTO statement_hours (database_id, hour, minutes) VALUES (?, ?, ?) ON CONFLICT (database_id, hour) DO UPDATE SET minutes = excluded.minutes',
    );
    this.#deleteOpen = db.prepare<[string, number, number]>('DELETE FROM statement_intervals WHERE database_id = ? AND ts > ? AND ts <= ?');
    this.#lastSeen = db.prepare<[number, number]>('UPDATE statements SET last_seen_ts = max(last_seen_ts, ?) WHERE key = ?');
    // Whole instants up to about `limit` rows: the intervals of one instant go together.
    this.#expireOpen = db.prepare<{ database_id: string; cutoff: number; limit: number }>(
      `DELETE FROM statement_intervals WHERE database_id = @database_id AND ts < @cutoff AND ts <= coalesce(
         (SELECT ts FROM statement_intervals WHERE database_id = @database_id AND ts < @cutoff ORDER BY ts LIMIT 1 OFFSET @limit - 1), @cutoff)`,
    );
    this.#expireHours = db.prepare<[string, number]>('DELETE FROM statement_hours WHERE database_id = ? AND hour <= ?');
    // last_seen_ts is exact for folded intervals; open ones are looked at.
    this.#expireStatements = db.prepare<[string, number]>(
      `DELETE FROM statements WHERE database_id = ? AND last_seen_ts < ?
         AND NOT EXISTS (SELECT 1 FROM statement_intervals i WHERE i.database_id = statements.database_id AND i.statement_key = statements.key)`,
    );
  }

  /** Stores one interval's statements; call inside the transaction that stores the sample. */
  recordInterval(databaseId: string, ts: number, statements: readonly StatementInterval[]): void {
    const ran = statements.filter((statement) => statement.calls > 0);
    if (ran.length === 0) return;
    // Every reachable snapshot measured statements (an empty list when none ran): the previous one starts the interval.
    const start = this.samples.lastReachedBefore(databaseId, ts) ?? null;
    const known = this.#knownOf(databaseId);
    for (const statement of ran) {
      const key = this.#statementKey(databaseId, known, statement, ts);
      this.#insertInterval.run(databaseId, ts, key, start, statement.calls, statement.total_time_ms, statement.max_time_ms, statement.rows);
    }
    this.#forgetBeyondSize(databaseId);
  }

  /** Empties the key cache: after a transaction that may have added statements was rolled back. */
  forgetUncommitted(): void {
    this.#known.clear();
    this.#knownCount = 0;
  }

  top(databaseId: string, fromMs: number, toMs: number, sort: QuerySort, limit: number): QueryTotals[] {
    const sums = this.#sums(databaseId, fromMs, toMs, null);
    const rows: QueryTotals[] = [];
    for (const statement of this.#statements.iterate(databaseId)) {
      const found = sums.get(statement.key);
      if (found === undefined || found.calls <= 0) continue;
      const { id, database_id, fingerprint, query, first_seen_ts, last_seen_ts } = statement;
      rows.push({ id, database_id, fingerprint, query, first_seen_ts, last_seen_ts, ...found, mean_time_ms: found.total_time_ms / found.calls });
    }
    return rows.sort((a, b) => order[sort](a, b) || (a.id < b.id ? -1 : 1)).slice(0, limit);
  }

  findById(databaseId: string, id: string): QueryRow | undefined {
    return this.#byId.get(databaseId, id);
  }

  /** One statement's numbers over (fromMs, toMs]; undefined when it did not run then. */
  totals(databaseId: string, queryId: string, fromMs: number, toMs: number): QueryTotals | undefined {
    const statement = this.#keyOf.get(queryId);
    if (statement === undefined || statement.database_id !== databaseId) return undefined;
    const found = this.#sums(databaseId, fromMs, toMs, statement.key).get(statement.key);
    if (found === undefined || found.calls <= 0) return undefined;
    return { ...this.findById(databaseId, queryId)!, ...found, mean_time_ms: found.total_time_ms / found.calls };
  }

  /**
   * Mean time per call over the intervals that lie wholly within (fromMs, toMs]; null when it did not run.
   * A folded minute counts when every interval of the database ending in it began at or after fromMs.
   */
  meanTime(queryId: string, fromMs: number, toMs: number): number | null {
    const statement = this.#keyOf.get(queryId);
    if (statement === undefined) return null;
    const open = this.#openMean.get({ database_id: statement.database_id, key: statement.key, from: fromMs, to: toMs })!;
    let calls = open.calls ?? 0;
    let total = open.total ?? 0;
    this.#forEachFolded(statement.database_id, fromMs, toMs, (entry) => {
      if (entry.key !== statement.key || entry.calls <= 0 || entry.earliestStart === null || entry.earliestStart < fromMs || entry.lastTs > toMs) return;
      calls += entry.calls;
      total += entry.totalUs / 1000;
    });
    return calls > 0 ? total / calls : null;
  }

  /** The end of a database's oldest open interval, if any. */
  oldestOpen(databaseId: string): number | null {
    return this.#oldestOpen.get(databaseId) ?? null;
  }

  /**
   * Folds a database's open intervals of the hour that holds `ts` and ending at or before `upToMs`
   * (the end of a minute) into that hour's row, and moves its statements' last_seen_ts forward.
   */
  foldHour(databaseId: string, ts: number, upToMs: number): void {
    const hour = hourOf(minuteOf(ts));
    const end = Math.min(hour + hourMs, upToMs);
    const added = new Map<string, StatementMinute>();
    const earliest = new Map<number, number | null>();
    for (const row of this.#openOfHour.iterate(databaseId, hour, end)) {
      const minute = minuteOf(row.ts);
      const seen = earliest.get(minute);
      earliest.set(minute, seen === undefined ? row.start : seen === null || row.start === null ? null : Math.min(seen, row.start));
      const id = `${minute}:${row.key}`;
      const entry = added.get(id);
      if (entry === undefined) {
        added.set(id, { minute, earliestStart: null, key: row.key, calls: row.calls, totalUs: row.total * 1000, maxUs: row.max === null ? null : row.max * 1000, rows: row.rows, lastTs: row.ts });
        continue;
      }
      entry.calls += row.calls;
      entry.totalUs += row.total * 1000;
      entry.maxUs = row.max === null ? entry.maxUs : Math.max(entry.maxUs ?? 0, row.max * 1000);
      entry.rows += row.rows;
      entry.lastTs = Math.max(entry.lastTs, row.ts);
    }
    const more = [...added.values()].map((entry) => ({
      ...entry,
      earliestStart: earliest.get(entry.minute)!,
      calls: Math.round(entry.calls),
      totalUs: Math.round(entry.totalUs),
      maxUs: entry.maxUs === null ? null : Math.round(entry.maxUs),
      rows: Math.round(entry.rows),
    }));
    const stored = this.#hour.get(databaseId, hour);
    const minutes = stored === undefined ? more : mergeStatementMinutes(decodeStatementHour(hour, stored), more);
    this.#upsertHour.run(databaseId, hour, encodeStatementHour(hour, minutes));
    this.#deleteOpen.run(databaseId, hour, end);
    const lastByKey = new Map<number, number>();
    for (const entry of more) lastByKey.set(entry.key, Math.max(lastByKey.get(entry.key) ?? 0, entry.lastTs));
    for (const [key, last] of lastByKey) this.#lastSeen.run(last, key);
  }

  /** Drops a database's open intervals older than the cutoff, oldest first, about `limit` rows at most; returns how many. */
  expireIntervals(databaseId: string, cutoffMs: number, limit: number): number {
    return this.#expireOpen.run({ database_id: databaseId, cutoff: cutoffMs, limit }).changes;
  }

  /** Drops a database's hours that ended at or before the cutoff. */
  expireHours(databaseId: string, cutoffMs: number): number {
    return this.#expireHours.run(databaseId, cutoffMs - hourMs).changes;
  }

  /** Drops a database's statements last seen before the cutoff that no open interval refers to. */
  expireStatements(databaseId: string, cutoffMs: number): number {
    const changes = this.#expireStatements.run(databaseId, cutoffMs).changes;
    if (changes > 0) this.#forgetDatabase(databaseId);
    return changes;
  }

  /** A database's cached statements, moved to the end of the cache's order: the most recently collected. */
  #knownOf(databaseId: string): Map<string, KnownStatement> {
    const known = this.#known.get(databaseId) ?? new Map<string, KnownStatement>();
    this.#known.delete(databaseId);
    this.#known.set(databaseId, known);
    return known;
  }

  /** Forgets the least recently collected databases while the cache is over its size; never `current`'s. */
  #forgetBeyondSize(current: string): void {
    for (const databaseId of this.#known.keys()) {
      if (this.#knownCount <= this.maxKnownStatements || databaseId === current) return;
      this.#forgetDatabase(databaseId);
    }
  }

  #statementKey(databaseId: string, known: Map<string, KnownStatement>, statement: StatementInterval, ts: number): number {
    let entry = known.get(statement.fingerprint);
    if (entry === undefined) {
      const row = this.#statementByFingerprint.get(databaseId, statement.fingerprint);
      if (row === undefined) {
        const id = queryIdOf(databaseId, statement.fingerprint);
        const inserted = this.#insertStatement.run({ id, database_id: databaseId, fingerprint: statement.fingerprint, query: statement.query, first_seen_ts: ts });
        entry = { key: Number(inserted.lastInsertRowid), query: statement.query, firstSeen: ts, newest: ts };
      } else {
        entry = { key: row.key, query: row.query, firstSeen: row.first_seen_ts, newest: row.last_seen_ts };
      }
      known.set(statement.fingerprint, entry);
      this.#knownCount++;
    }
    const newText = statement.query !== entry.query && ts >= entry.newest;
    if (newText || ts < entry.firstSeen) {
      if (newText) entry.query = statement.query;
      entry.firstSeen = Math.min(entry.firstSeen, ts);
      this.#updateStatement.run({ key: entry.key, query: entry.query, first_seen_ts: entry.firstSeen });
    }
    entry.newest = Math.max(entry.newest, ts);
    return entry.key;
  }

  #forgetDatabase(databaseId: string): void {
    this.#knownCount -= this.#known.get(databaseId)?.size ?? 0;
    this.#known.delete(databaseId);
  }

  /** Each statement's sums over (fromMs, toMs]: folded minutes that overlap it, and open intervals within it. */
  #sums(databaseId: string, fromMs: number, toMs: number, key: number | null): Map<number, Sums> {
    const sums = new Map<number, Sums>();
    for (const row of this.#openSums.iterate({ database_id: databaseId, from: fromMs, to: toMs, key })) {
      sums.set(row.key, { calls: row.calls, total_time_ms: row.total_time_ms, max_time_ms: row.max_time_ms, rows: row.rows, range_last_ts: row.range_last_ts });
    }
    this.#forEachFolded(databaseId, fromMs, toMs, (entry) => {
      if (key !== null && entry.key !== key) return;
      const maxMs = entry.maxUs === null ? null : entry.maxUs / 1000;
      const found = sums.get(entry.key);
      if (found === undefined) {
        sums.set(entry.key, { calls: entry.calls, total_time_ms: entry.totalUs / 1000, max_time_ms: maxMs, rows: entry.rows, range_last_ts: entry.lastTs });
        return;
      }
      found.calls += entry.calls;
      found.total_time_ms += entry.totalUs / 1000;
      found.max_time_ms = found.max_time_ms === null ? maxMs : maxMs === null ? found.max_time_ms : Math.max(found.max_time_ms, maxMs);
      found.rows += entry.rows;
      found.range_last_ts = Math.max(found.range_last_ts, entry.lastTs);
    });
    return sums;
  }

  /** The folded statement minutes of a database that overlap (fromMs, toMs]. */
  #forEachFolded(databaseId: string, fromMs: number, toMs: number, visit: (entry: StatementMinute) => void): void {
    for (const { hour, minutes } of this.#hours.iterate(databaseId, fromMs - hourMs, toMs)) {
      for (const entry of decodeStatementHour(hour, minutes)) {
        if (entry.minute < toMs && entry.minute + minuteMs > fromMs) visit(entry);
      }
    }
  }
}
