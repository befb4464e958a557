import { z } from 'zod';
import { latencySource } from '../../common/agent-protocol/snapshot.js';
import type { MetricCatalog } from '../../common/metric-catalog.js';
import { nestedShape } from '../../common/nested-shape.js';

/** The `metrics` object of the API snapshot: the catalog's metrics shown there, at their paths. */
export function apiSnapshotMetrics(catalog: MetricCatalog): z.ZodObject {
  return z.object(
    nestedShape([
      ...catalog.filter((metric) => metric.api).map((metric) => [metric.path, z.number().nullable().describe(metric.help)] as const),
      [
        'latency.source',
        latencySource.describe(
          'How the latencies of the range were obtained: `histogram` when every interval in the range that has a latency ' +
            'took it from a latency histogram, otherwise `estimate` (from per-statement means and deviations). ' +
            'Latencies are those of the database alone: PostgreSQL estimates from pg_stat_statements; MySQL 8.0.19+ sums the ' +
            "schema's events_statements_histogram_by_digest; MariaDB, whose QUERY_RESPONSE_TIME histogram is server-wide, " +
            "estimates from the schema's statement digests, each taken at its mean. " +
            'Null exactly when the latencies are null: no statement ran in the range, or the engine keeps no statement ' +
            'statistics for the database (the agent snapshot says which in `latency.note`).',
        ),
      ],
    ]),
  );
}
