/** A remote agent as stored; it appears on its first authenticated call. */
export interface AgentRow {
  id: string;
  org_id: string;
  api_key_id: string;
  name: string;
  hostname: string | null;
  version: string | null;
  spool_dropped_total: number;
  last_seen_at: string;
  created_at: string;
}
