import { z } from 'zod';
import type { DatabaseRow } from '../databases/database-row.js';

/** One entry of Prometheus's HTTP service discovery document. */
export const scrapeTargetGroup = z
  .object({
    targets: z.array(z.string()).describe("The database's own address (host:port): relabel it to `instance`, and `__address__` to dbmon"),
    labels: z
      .object({
        __metrics_path__: z.string().describe("The database's own target on dbmon: /metrics/databases/{id}"),
        __meta_dbmon_database_id: z.string(),
        __meta_dbmon_database_name: z.string(),
        __meta_dbmon_engine: z.string().describe('postgresql, mysql or mariadb: keep one per job, as the exporters have one job each'),
      })
      .describe('Meta labels are dropped after relabeling; the series keep only instance and job'),
  })
  .meta({ id: 'ScrapeTargetGroup' });
export type ScrapeTargetGroup = z.output<typeof scrapeTargetGroup>;

/** Every monitored database as its own target, in Prometheus's `http_sd` format (the exporters' multi-target convention). */
export function scrapeTargets(databases: readonly DatabaseRow[]): ScrapeTargetGroup[] {
  return databases.map((database) => ({
    targets: [`${database.host.includes(':') ? `[${database.host}]` : database.host}:${database.port}`],
    labels: {
      __metrics_path__: `/metrics/databases/${database.id}`,
      __meta_dbmon_database_id: database.id,
      __meta_dbmon_database_name: database.name,
      __meta_dbmon_engine: database.type,
    },
  }));
}
