import type { Collector } from '../../collector.js';
import { AGENT_NAME } from '../../../sources/connection-settings.js';
import type { PostgresSource } from '../../../sources/postgres-source.js';
import { numberOf } from '../../../sources/row.js';

/**
 * Client connections to the monitored database, the agent's own sessions left out. Every
 * connection not running a statement right now counts as idle, "idle in transaction" included,
 * so that active + idle = total. `max` is the server's limit, shared by all its databases.
 * Seeing other users' sessions needs superuser or the pg_monitor role.
 */
export const postgresActivityCollector: Collector<PostgresSource> = {
  name: 'pg_stat_activity',
  async collect(source, { signal }) {
    const [row] = await source.query(
      `SELECT count(*) FILTER (WHERE state = 'active') AS active,
              count(*) AS total,
              current_setting('max_connections')::int AS max
         FROM pg_stat_activity
        WHERE backend_type = 'client backend'
          AND datname = current_database()
          AND application_name IS DISTINCT FROM $1`,
      [AGENT_NAME],
      signal,
    );
    const active = numberOf(row?.active);
    const total = numberOf(row?.total);
    return {
      values: { 'connections.active': active, 'connections.idle': total - active, 'connections.total': total, 'connections.max': numberOf(row?.max) },
    };
  },
};
