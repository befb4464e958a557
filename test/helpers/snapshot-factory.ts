import type { Snapshot } from '../../common/agent-protocol/snapshot.js';
import { metricCatalog } from '../../common/metric-catalog.js';

/** The engine counters' rates, none measured (the first cycle's). */
const noRates = Object.fromEntries(
  metricCatalog.filter(({ path }) => path.startsWith('rates.')).map(({ path }) => [path.slice('rates.'.length), null]),
) as Snapshot['metrics']['rates'];

/** A complete, plausible snapshot; override what a test is about. */
export function makeSnapshot(at: Date, overrides: { metrics?: Partial<Snapshot['metrics']> } & Partial<Omit<Snapshot, 'metrics'>> = {}): Snapshot {
  const { metrics, ...rest } = overrides;
  return {
    timestamp: at.toISOString(),
    reachable: true,
    version: '15.19',
    database_size_bytes: 8_000_000,
    counters: { 'pg_stat_database_xact_commit{datid="16384",datname="orders"}': 1000, 'pg_stat_database_xact_rollback{datid="16384",datname="orders"}': 3 },
    collectors: [{ name: 'postgres_activity', duration_ms: 2.5, success: true }],
    ...rest,
    metrics: {
      cpu_usage: 12.5,
      memory_usage: 40,
      disk_usage: 55,
      connections: { active: 2, idle: 3, total: 5, max: 100 },
      throughput: { queries_per_second: 10, transactions_per_second: 4 },
      latency: { avg_query_time_ms: 1.5, p95_query_time_ms: 4, p99_query_time_ms: 9, source: 'estimate' },
      rates: noRates,
      ...metrics,
    },
  };
}
