import type { Collector } from '../../collector.js';
import { refreshedEvery, settingsRefreshMs } from '../refreshed-every.js';
import { mysqlGlobalVariables, seriesKey } from '../../../../common/exporter-catalog.js';
import type { MysqlSource } from '../../../sources/mysql-source.js';
import { textOf } from '../../../sources/row.js';
import { mysqlValue } from './mysql-value.js';

/** The server settings dashboards read, as mysql_global_variables_<name>; one a version lacks is absent. Read every few minutes, not every cycle. */
export const mysqlGlobalVariablesCollector: Collector<MysqlSource> = refreshedEvery(settingsRefreshMs, {
  name: 'mysql_global_variables',
  async collect(source, { signal }) {
    const rows = await source.query('SHOW GLOBAL VARIABLES WHERE Variable_name IN (?)', [[...mysqlGlobalVariables]], signal);
    const counters: Record<string, number> = {};
    for (const row of rows) {
      const value = mysqlValue(row.Value);
      if (value !== null) counters[seriesKey(`mysql_global_variables_${textOf(row.Variable_name).toLowerCase()}`)] = value;
    }
    return { counters };
  },
});
