import type { SnapshotMetricFields } from '../../common/metric-catalog.js';
import type { CollectionErrorCode } from './collection-error-code.js';

/**
 * The snapshot one collection cycle produces for one database: the shape the server ingests
 * from `POST /v1/agent/samples`. Plain JSON; snake_case because it goes over the wire as is.
 * Each catalog metric sits at its `snapshot` place (under `metrics`, or at the top level).
 */
export type Snapshot = SnapshotEnvelope & SnapshotMetricFields & { metrics: { latency: LatencyQualifiers } };

interface SnapshotEnvelope {
  timestamp: string;
  reachable: boolean;
  error?: string;
  /** Set with `error` when the database could not be reached. */
  error_code?: CollectionErrorCode;
  version: string | null;
  /** Raw cumulative engine counters, named like postgres_exporter / mysqld_exporter. */
  counters: Record<string, number>;
  collectors: CollectorOutcome[];
  /** Per-interval deltas; absent when no interval could be measured (first cycle, no statistics). */
  statements?: StatementStats[];
}

export type LatencySource = 'histogram' | 'estimate';

/** How the latency metrics were obtained. */
export interface LatencyQualifiers {
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
