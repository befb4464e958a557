import type { QueryTotals } from './queries-repository.js';

export function presentQuery(row: QueryTotals) {
  return {
    id: row.id,
    database_id: row.database_id,
    fingerprint: row.fingerprint,
    query: row.query,
    calls: row.calls,
    total_time_ms: row.total_time_ms,
    mean_time_ms: row.mean_time_ms,
    max_time_ms: row.max_time_ms,
    rows: row.rows,
    first_seen_at: new Date(row.first_seen_ts).toISOString(),
    last_seen_at: new Date(row.range_last_ts).toISOString(),
  };
}
