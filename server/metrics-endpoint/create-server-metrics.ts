import type { Services } from '../services.js';
import { ServerMetrics } from './server-metrics.js';

export function createServerMetrics(services: Services, now: () => Date): ServerMetrics {
  return new ServerMetrics({
    databases: () => services.databaseRows.all(),
    latestSample: (databaseId) => services.samples.latest(databaseId),
    latestSnapshots: () => services.samples.latestSnapshots(),
    agents: () => services.agents.all(),
    now,
  }, services.catalog);
}
