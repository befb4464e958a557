import type { ScrapeSources } from '../../server/metrics-endpoint/server-metrics.js';

/** The server's own state when nothing is happening, for scrape tests about the databases' series. */
export const idleHealthSources: Pick<ScrapeSources, 'lastReachedAt' | 'activeAlerts' | 'webhookBacklog' | 'storageFiles'> = {
  lastReachedAt: () => undefined,
  activeAlerts: () => ({}),
  webhookBacklog: () => ({ pending: 0, oldest_created_at: null }),
  storageFiles: () => ({ database: 0, wal: 0 }),
};
