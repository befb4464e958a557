import type { Collector } from '../../collector.js';
import type { PostgresSource } from '../../../sources/postgres-source.js';
import { numberOf } from '../../../sources/row.js';

/** pg_stat_database columns exported as pg_stat_database_<column>, as postgres_exporter names them. */
const COLUMNS = [
  'numbackends',
  'xact_commit',
  'xact_rollback',
  'blks_read',
  'blks_hit',
  'tup_returned',
  'tup_fetched',
  'tup_inserted',
  'tup_updated',
  'tup_deleted',
  'conflicts',
  'temp_files',
  'temp_bytes',
  'deadlocks',
  'blk_read_time',
  'blk_write_time',
] as const;

/**
 * Counters of the monitored database. Transactions include the agent's own few per cycle
 * (every statement it runs is one); the view cannot tell them apart. Backends report to the
 * view when they go idle, at most once a second.
 */
export const postgresStatDatabaseCollector: Collector<PostgresSource> = {
  name: 'pg_stat_database',
  async collect(source, { signal }) {
    const [row] = await source.query(
      `SELECT ${COLUMNS.join(', ')},
              extract(epoch FROM now() - pg_postmaster_start_time()) AS uptime_seconds
         FROM pg_stat_database
        WHERE datname = current_database()`,
      [],
      signal,
    );
    if (row === undefined) throw new Error('the monitored database is missing from pg_stat_database');
    const counters = Object.fromEntries(COLUMNS.map((column) => [`pg_stat_database_${column}`, numberOf(row[column])]));
    return {
      counters,
      readings: {
        uptimeSeconds: numberOf(row.uptime_seconds),
        transactions: numberOf(row.xact_commit) + numberOf(row.xact_rollback),
      },
    };
  },
};
