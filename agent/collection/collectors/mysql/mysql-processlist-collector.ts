import type { Collector } from '../../collector.js';
import { AGENT_NAME } from '../../../sources/connection-settings.js';
import type { MysqlSource } from '../../../sources/mysql-source.js';
import { numberOf } from '../../../sources/row.js';

/**
 * Client connections whose default schema is the monitored database. Server threads (MariaDB's
 * 'system user', the event scheduler) are not connections; the agent's own collection
 * connection has no default schema, and its other sessions are recognised by the program_name
 * attribute they connect with. `max` is the server's limit, shared by all its databases.
 */
export const mysqlProcesslistCollector: Collector<MysqlSource> = {
  name: 'mysql_processlist',
  async collect(source, { signal }) {
    const [row] = await source.query(
      `SELECT COALESCE(SUM(COMMAND <> 'Sleep'), 0) AS active,
              COUNT(*) AS total,
              @@max_connections AS max
         FROM information_schema.PROCESSLIST
        WHERE DB = ?
          AND COMMAND <> 'Daemon'
          AND USER NOT IN ('system user', 'event_scheduler')
          AND ID NOT IN (SELECT PROCESSLIST_ID
                           FROM performance_schema.session_connect_attrs
                          WHERE ATTR_NAME = 'program_name' AND ATTR_VALUE = ?)`,
      [source.schema, AGENT_NAME],
      signal,
    );
    const active = numberOf(row?.active);
    const total = numberOf(row?.total);
    return {
      values: { 'connections.active': active, 'connections.idle': total - active, 'connections.total': total, 'connections.max': numberOf(row?.max) },
    };
  },
};
