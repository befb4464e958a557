import type { CollectionErrorCode } from './collection-error-code.js';

/**
 * The snapshot one collection cycle produces for one database: the shape the server ingests
 * from `POST /v1/agent/samples`. Plain JSON; snake_case because it goes over the wire as is.
 */
export interface Snapshot {
  timestamp: string;
  reachable: boolean;
  error?: string;
  /** Set with `error` when the database could not be reached. */
  error_code?: CollectionErrorCode;
  version: string | null;
  database_size_bytes: number | null;
  metrics: SnapshotMetrics;
  /** Raw cumulative engine counters, named like postgres_exporter / mysqld_exporter. */
  counters: Record<string, number>;
  collectors: CollectorOutcome[];
  /** Per-interval deltas; absent when no interval could be measured (first cycle, no statistics). */
  statements?: StatementStats[];
}

export interface SnapshotMetrics {
  cpu_usage: number | null;
  memory_usage: number | null;
  disk_usage: number | null;
  connections: Connections;
  throughput: Throughput;
  latency: Latency;
}

export interface Connections {
  active: number | null;
  idle: number | null;
  total: number | null;
  max: number | null;
}

export interface Throughput {
  queries_per_second: number | null;
  transactions_per_second: number | null;
}

export type LatencySource = 'histogram' | 'estimate';

export interface Latency {
  avg_query_time_ms: number | null;
  p95_query_time_ms: number | null;
  p99_query_time_ms: number | null;
  source: LatencySource | null;
  /** Why there is no latency; given only when source is null. */
  note?: string;
}

export interface CollectorOutcome {
  name: string;
  duration_ms: number;
  success: boolean;
  error?: string;
}

export interface StatementStats {
  query_id_source: string;
  query: string;
  calls: number;
  total_time_ms: number;
  max_time_ms: number | null;
  rows: number;
}
