/** A remote agent as stored; it appears on its first authenticated call. */
export interface AgentRow {
  id: string;
  org_id: string;
  api_key_id: string;
  name: string;
  hostname: string | null;
  version: string | null;
  spool_dropped_total: number;
  /** Batches the agent last reported waiting in its spool; null until it reports them. */
  spool_batches: number | null;
  /** When the oldest of them was appended, in the server's clock; null when none waits or unreported. */
  spool_oldest_batch_at: string | null;
  last_seen_at: string;
  created_at: string;
}
