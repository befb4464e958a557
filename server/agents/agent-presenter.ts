import type { AgentRow } from './agent-row.js';

export function presentAgent(row: AgentRow) {
  return {
    id: row.id,
    name: row.name,
    hostname: row.hostname,
    version: row.version,
    spool_dropped_total: row.spool_dropped_total,
    spool_batches: row.spool_batches,
    spool_oldest_batch_at: row.spool_oldest_batch_at,
    last_seen_at: row.last_seen_at,
    created_at: row.created_at,
  };
}
