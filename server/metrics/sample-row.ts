import type { MetricColumns } from '../../common/metric-catalog.js';

/** A stored sample (what other features read of one; they never read the table): one column per catalog metric (the real catalog's typed; a fixture's reached by name). */
export type SampleRow = MetricColumns & {
  database_id: string;
  ts: number;
  reachable: number;
  latency_source: string | null;
};

/** The newest snapshot of a database as stored, with what only the snapshot holds (error, counters, collectors). */
export interface LatestSnapshotRow {
  database_id: string;
  ts: number;
  reachable: number;
  error: string | null;
  counters: string;
  collectors: string;
}
