import type { Collector } from '../../collector.js';
import { seriesKey } from '../../../../common/exporter-catalog.js';
import { AGENT_NAME } from '../../../sources/connection-settings.js';
import type { MysqlSource } from '../../../sources/mysql-source.js';
import { numberOf, textOf } from '../../../sources/row.js';

/**
 * The server's threads by command and state, as mysqld_exporter's info_schema.processlist
 * reports them (lower case, spaces as underscores, an empty state as `unknown`); server-wide,
 * the agent's own sessions left out.
 */
export const mysqlProcesslistThreadsCollector: Collector<MysqlSource> = {
  name: 'mysql_info_schema_processlist',
  async collect(source, { signal }) {
    const rows = await source.query(
      `SELECT LOWER(COMMAND) AS command, LOWER(REPLACE(COALESCE(NULLIF(STATE, ''), 'unknown'), ' ', '_')) AS state, COUNT(*) AS threads
         FROM information_schema.PROCESSLIST
        WHERE ID <> CONNECTION_ID()
          AND ID NOT IN (SELECT PROCESSLIST_ID
                           FROM performance_schema.session_connect_attrs
                          WHERE ATTR_NAME = 'program_name' AND ATTR_VALUE = ?)
        GROUP BY 1, 2`,
      [AGENT_NAME],
      signal,
    );
    return {
      counters: Object.fromEntries(
        rows.map((row) => [seriesKey('mysql_info_schema_processlist_threads', { command: textOf(row.command), state: textOf(row.state) }), numberOf(row.threads)]),
      ),
    };
  },
};
