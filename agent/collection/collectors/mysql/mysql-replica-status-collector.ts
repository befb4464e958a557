import type { Collector } from '../../collector.js';
import { mysqlReplicaStatusColumns, seriesKey } from '../../../../common/exporter-catalog.js';
import type { MysqlFlavor, MysqlSource } from '../../../sources/mysql-source.js';
import { textOf, type Row } from '../../../sources/row.js';
import { mysqlValue } from './mysql-value.js';

/** The replica status needs REPLICATION CLIENT (MySQL) or REPLICA MONITOR (MariaDB 10.5.9 on): an optional grant. */
const accessDenied = 'ER_SPECIFIC_ACCESS_DENIED_ERROR';

/**
 * Every replication channel's status, as mysqld_exporter names it. On a server that replicates
 * nothing there are no rows, and without the grant no series either: `dbmon-agent check` says so.
 */
export const mysqlReplicaStatusCollector: Collector<MysqlSource> = {
  name: 'mysql_replica_status',
  async collect(source, { signal }) {
    const flavor = await source.flavor(signal);
    try {
      return { counters: replicaStatusCounters(await readReplicaStatus((sql) => source.query(sql, [], signal), flavor)) };
    } catch (error) {
      if ((error as { code?: string }).code === accessDenied) return {};
      throw error;
    }
  },
};

/**
 * The replica status rows: MariaDB lists every connection with SHOW ALL SLAVES STATUS; MySQL
 * says SHOW REPLICA STATUS from 8.0.22 on and only SHOW SLAVE STATUS before.
 */
export async function readReplicaStatus(query: (sql: string) => Promise<Row[]>, flavor: MysqlFlavor): Promise<Row[]> {
  if (flavor === 'mariadb') return query('SHOW ALL SLAVES STATUS');
  return query('SHOW REPLICA STATUS').catch((error: { code?: string }) => {
    if (error.code === 'ER_PARSE_ERROR') return query('SHOW SLAVE STATUS');
    throw error;
  });
}

/** Replica status rows as the exporter's series, MySQL 8.0.22's Source and Replica columns under their former names. */
export function replicaStatusCounters(rows: readonly Row[]): Record<string, number> {
  const counters: Record<string, number> = {};
  for (const row of rows) {
    const columns = new Map(Object.entries(row).map(([column, value]) => [formerName(column), value]));
    const labels = {
      master_host: textOf(columns.get('master_host')),
      master_uuid: textOf(columns.get('master_uuid')),
      channel_name: textOf(columns.get('channel_name')),
      connection_name: textOf(columns.get('connection_name')),
    };
    for (const column of mysqlReplicaStatusColumns) {
      const value = mysqlValue(columns.get(column));
      if (value !== null) counters[seriesKey(`mysql_slave_status_${column}`, labels)] = value;
    }
  }
  return counters;
}

function formerName(column: string): string {
  return column.toLowerCase().replace('source', 'master').replace('replica', 'slave');
}
