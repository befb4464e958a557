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
    // One statement: the server's own row, joined to its replicas' (none on a replica, where
    // pg_current_wal_lsn() would fail: the CASE keeps it from being called without a replica row).
    const rows = await source.query(
      `SELECT s.is_replica, s.lag, r.pid, r.application_name, coalesce(host(r.client_addr), '') AS client_addr, r.state,
              CASE WHEN r.pid IS NOT NULL THEN pg_wal_lsn_diff(pg_current_wal_lsn(), r.replay_lsn) END AS lag_bytes,
              extract(epoch FROM r.replay_lag) AS lag_seconds
         FROM (SELECT pg_is_in_recovery() AS is_replica,
                      CASE WHEN pg_is_in_recovery()
                           THEN greatest(0, extract(epoch FROM now() - pg_last_xact_replay_timestamp())) ELSE 0 END AS lag) s
         LEFT JOIN pg_stat_replication r ON NOT s.is_replica`,
      [],
      signal,
    );
    return { counters: replicationCounters(rows[0] ?? {}, rows.filter((row) => row.pid !== null)) };
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
