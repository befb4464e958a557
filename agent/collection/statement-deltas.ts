import { maxQueryLength, maxStatementsPerSnapshot } from '../../common/agent-protocol/limits.js';
import type { StatementStats } from '../../common/agent-protocol/snapshot.js';
import type { StatementTotals } from './collector.js';
import { counterIncrease } from './counter-delta.js';

/**
 * What one statement entry did within an interval: its totals' fields as differences, except
 * `maxMs`, known only when the lifetime maximum rose within the interval (or the entry is new).
 */
export type StatementDelta = Omit<StatementTotals, 'key'>;

/** Entries that ran within the interval; see counter-delta.ts for how resets are read. */
export function statementDeltas(
  previous: readonly StatementTotals[],
  current: readonly StatementTotals[],
): StatementDelta[] {
  const before = new Map(previous.map((entry) => [entry.key, entry]));
  const deltas: StatementDelta[] = [];
  for (const entry of current) {
    const old = before.get(entry.key);
    const calls = counterIncrease(old?.calls, entry.calls);
    if (calls === 0) continue;
    const fresh = old === undefined || entry.calls < old.calls;
    const base = fresh ? undefined : old;
    deltas.push({
      queryId: entry.queryId,
      query: entry.query,
      calls,
      totalMs: Math.max(0, entry.totalMs - (base?.totalMs ?? 0)),
      sumSquaresMs2:
        entry.sumSquaresMs2 === null
          ? null
          : Math.max(0, entry.sumSquaresMs2 - (base?.sumSquaresMs2 ?? 0)),
      maxMs: intervalMax(base?.maxMs ?? null, entry.maxMs, fresh),
      rows: Math.max(0, entry.rows - (base?.rows ?? 0)),
    });
  }
  return deltas;
}

function intervalMax(before: number | null, now: number | null, fresh: boolean): number | null {
  if (now === null) return null;
  if (fresh) return now;
  return before !== null && now > before ? now : null;
}

/**
 * One record per query id (an id can span several entries, e.g. one per user), the most total
 * time first, at most the protocol's maxStatementsPerSnapshot of them (the statements that took the most
 * time are the ones worth a look), texts cut at its maxQueryLength characters.
 */
export function statementStats(deltas: readonly StatementDelta[]): StatementStats[] {
  const byId = new Map<string, StatementStats>();
  for (const delta of deltas) {
    const seen = byId.get(delta.queryId);
    if (seen === undefined) {
      byId.set(delta.queryId, {
        query_id_source: delta.queryId,
        query: delta.query.slice(0, maxQueryLength),
        calls: delta.calls,
        total_time_ms: delta.totalMs,
        max_time_ms: delta.maxMs,
        rows: delta.rows,
      });
      continue;
    }
    seen.calls += delta.calls;
    seen.total_time_ms += delta.totalMs;
    seen.rows += delta.rows;
    seen.max_time_ms =
      seen.max_time_ms === null || delta.maxMs === null
        ? null
        : Math.max(seen.max_time_ms, delta.maxMs);
  }
  return [...byId.values()].sort((a, b) => b.total_time_ms - a.total_time_ms).slice(0, maxStatementsPerSnapshot);
}
