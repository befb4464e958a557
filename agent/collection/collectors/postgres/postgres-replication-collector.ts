import type { Collector } from '../../collector.js';
import { seriesKey } from '../../../../common/exporter-catalog.js';
import type { PostgresSource } from '../../../sources/postgres-source.js';
import { nullableNumberOf, numberOf, textOf, type Row } from '../../../sources/row.js';

/**
 * Replication as postgres_exporter reports it: whether the server is a replica and, on one, how
 * long ago it replayed its last transaction; on a primary, each replica's lag in WAL bytes and
 * in seconds (pg_stat_replication lists none on a replica or a standalone server).
 */
export const postgresReplicationCollector: Collector<PostgresSource> = {
  name: 'pg_replication',
  async collect(source, { signal }) {
    const [self] = await source.query(
      `SELECT pg_is_in_recovery() AS is_replica,
              CASE WHEN pg_is_in_recovery()
                   THEN greatest(0, extract(epoch FROM now() - pg_last_xact_replay_timestamp())) ELSE 0 END AS lag`,
      [],
      signal,
    );
    const replicas = await source.query(
      `SELECT application_name, coalesce(host(client_addr), '') AS client_addr, state,
              pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn) AS lag_bytes,
              extract(epoch FROM replay_lag) AS lag_seconds
         FROM pg_stat_replication
        WHERE NOT pg_is_in_recovery()`,
      [],
      signal,
    );
    return { counters: replicationCounters(self ?? {}, replicas) };
  },
};

export function replicationCounters(self: Row, replicas: readonly Row[]): Record<string, number> {
  const counters: Record<string, number> = {
    [seriesKey('pg_replication_is_replica')]: self.is_replica === true ? 1 : 0,
    // No transaction replayed yet on a replica leaves the lag unknown: left out rather than 0.
    ...(nullableNumberOf(self.lag) !== null && { [seriesKey('pg_replication_lag')]: numberOf(self.lag) }),
  };
  for (const replica of replicas) {
    const labels = { application_name: textOf(replica.application_name), client_addr: textOf(replica.client_addr), state: textOf(replica.state) };
    const bytes = nullableNumberOf(replica.lag_bytes);
    if (bytes !== null) counters[seriesKey('pg_stat_replication_pg_wal_lsn_diff', labels)] = bytes;
    counters[seriesKey('pg_stat_replication_replay_lag_seconds', labels)] = nullableNumberOf(replica.lag_seconds) ?? 0;
  }
  return counters;
}
