import type { Collector, Contribution } from '../../collector.js';
import { pgActivityStates, seriesKey } from '../../../../common/exporter-catalog.js';
import { AGENT_NAME } from '../../../sources/connection-settings.js';
import type { PostgresSource } from '../../../sources/postgres-source.js';
import { numberOf, textOf, type Row } from '../../../sources/row.js';

/**
 * Client connections to the monitored database by state, the agent's own sessions left out.
 * Every connection not running a statement right now counts as idle, "idle in transaction"
 * included, so that active + idle = total. `max` is the server's limit, shared by all its
 * databases. Seeing other users' sessions needs superuser or the pg_monitor role.
 */
export const postgresActivityCollector: Collector<PostgresSource> = {
  name: 'pg_stat_activity',
  async collect(source, { signal }) {
    const rows = await source.query(
      `SELECT current_database() AS datname, current_setting('max_connections')::int AS max, s.state,
              count(a.state) AS count,
              coalesce(max(extract(epoch FROM now() - a.xact_start)), 0) AS max_tx_duration
         FROM unnest($2::text[]) AS s(state)
         LEFT JOIN pg_stat_activity a
           ON a.state = s.state
          AND a.backend_type = 'client backend'
          AND a.datname = current_database()
          AND a.application_name IS DISTINCT FROM $1
        GROUP BY s.state`,
      [AGENT_NAME, pgActivityStates],
      signal,
    );
    return activityContribution(rows);
  },
};

/** One row per state (every state of `pgActivityStates`, with count 0 when none is in it). */
export function activityContribution(rows: readonly Row[]): Contribution {
  const counters: Record<string, number> = {};
  let active = 0;
  let total = 0;
  for (const row of rows) {
    const labels = { datname: textOf(row.datname), state: textOf(row.state) };
    const count = numberOf(row.count);
    counters[seriesKey('pg_stat_activity_count', labels)] = count;
    counters[seriesKey('pg_stat_activity_max_tx_duration', labels)] = numberOf(row.max_tx_duration);
    total += count;
    if (labels.state === 'active') active = count;
  }
  const max = rows.length === 0 ? null : numberOf(rows[0]!.max);
  return {
    values: { 'connections.active': active, 'connections.idle': total - active, 'connections.total': total, 'connections.max': max },
    counters,
  };
}
