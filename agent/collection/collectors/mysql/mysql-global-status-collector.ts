import type { Collector } from '../../collector.js';
import type { MysqlSource } from '../../../sources/mysql-source.js';
import { numberOf, textOf } from '../../../sources/row.js';

/** Exported as mysql_global_status_<name in lower case>, as mysqld_exporter names them. */
const VARIABLES = [
  'Aborted_clients',
  'Aborted_connects',
  'Bytes_received',
  'Bytes_sent',
  'Com_begin',
  'Com_commit',
  'Com_delete',
  'Com_insert',
  'Com_replace',
  'Com_rollback',
  'Com_select',
  'Com_update',
  'Connections',
  'Created_tmp_disk_tables',
  'Created_tmp_tables',
  'Innodb_buffer_pool_read_requests',
  'Innodb_buffer_pool_reads',
  'Innodb_data_reads',
  'Innodb_data_writes',
  'Innodb_row_lock_time',
  'Innodb_row_lock_waits',
  'Innodb_rows_deleted',
  'Innodb_rows_inserted',
  'Innodb_rows_read',
  'Innodb_rows_updated',
  'Max_used_connections',
  'Queries',
  'Questions',
  'Select_full_join',
  'Select_scan',
  'Slow_queries',
  'Sort_merge_passes',
  'Table_locks_waited',
  'Threads_connected',
  'Threads_created',
  'Threads_running',
  'Uptime',
] as const;

/**
 * Server-wide counters, every database's traffic and the agent's own included: exported as they
 * are, and the server's uptime. The monitored database's rates come from its statement digests.
 */
export const mysqlGlobalStatusCollector: Collector<MysqlSource> = {
  name: 'mysql_global_status',
  async collect(source, { signal }) {
    const rows = await source.query(
      `SHOW GLOBAL STATUS WHERE Variable_name IN (?)`,
      [[...VARIABLES]],
      signal,
    );
    const status = new Map(rows.map((row) => [textOf(row.Variable_name).toLowerCase(), numberOf(row.Value)]));
    const value = (name: string): number => {
      const found = status.get(name);
      if (found === undefined) throw new Error(`SHOW GLOBAL STATUS has no ${name}`);
      return found;
    };
    return {
      counters: Object.fromEntries([...status].map(([name, count]) => [`mysql_global_status_${name}`, count])),
      readings: { uptimeSeconds: value('uptime') },
    };
  },
};
