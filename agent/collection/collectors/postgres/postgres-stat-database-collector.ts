import type { Collector } from '../../collector.js';
import type { PostgresSource } from '../../../sources/postgres-source.js';
import { numberOf, textOf } from '../../../sources/row.js';
import { pgStatDatabaseColumns, seriesKey } from '../../../../common/exporter-catalog.js';
import { pgRatedColumns, pgStatDatabaseRatePath } from '../../../../common/metric-catalog.js';

/**
 * Counters of the monitored database, exported as postgres_exporter names them. Transactions
 * include the agent's own few per cycle (every statement it runs is one); the view cannot tell
 * them apart. Backends report to the view when they go idle, at most once a second.
 */
export const postgresStatDatabaseCollector: Collector<PostgresSource> = {
  name: 'pg_stat_database',
  readsRateCounters: true,
  async collect(source, { signal }) {
    const [row] = await source.query(
      `SELECT datid::text AS datid, datname, ${pgStatDatabaseColumns.join(', ')},
              extract(epoch FROM now() - pg_postmaster_start_time()) AS uptime_seconds
         FROM pg_stat_database
        WHERE datname = current_database()`,
      [],
      signal,
    );
    if (row === undefined) throw new Error('the monitored database is missing from pg_stat_database');
    const labels = { datid: textOf(row.datid), datname: textOf(row.datname) };
    const counters = Object.fromEntries(pgStatDatabaseColumns.map((column) => [seriesKey(`pg_stat_database_${column}`, labels), numberOf(row[column])]));
    return {
      counters,
      readings: {
        uptimeSeconds: numberOf(row.uptime_seconds),
        transactions: numberOf(row.xact_commit) + numberOf(row.xact_rollback),
        rateCounters: Object.fromEntries(pgRatedColumns.map((column) => [pgStatDatabaseRatePath(column), numberOf(row[column])])),
      },
    };
  },
};
