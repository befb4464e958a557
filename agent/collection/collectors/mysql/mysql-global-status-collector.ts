import type { Collector } from '../../collector.js';
import { mysqlStatusFamilies, mysqlStatusVariables, seriesKey } from '../../../../common/exporter-catalog.js';
import { mysqlRatedStatusVariables, mysqlStatusRatePath, type MetricPath } from '../../../../common/metric-catalog.js';
import type { MysqlSource } from '../../../sources/mysql-source.js';
import { textOf, type Row } from '../../../sources/row.js';
import { mysqlValue } from './mysql-value.js';

const variables = [...mysqlStatusVariables.counter, ...mysqlStatusVariables.gauge];

/**
 * Server-wide counters, every database's traffic and the agent's own included, exported as
 * mysqld_exporter names them (Com_*, Handler_* and the buffer pool pages as labelled families),
 * and the server's uptime. The monitored database's rates come from its statement digests.
 * A variable one version lacks (the query cache of MySQL 8) is simply absent.
 */
export const mysqlGlobalStatusCollector: Collector<MysqlSource> = {
  name: 'mysql_global_status',
  readsRateCounters: true,
  async collect(source, { signal }) {
    const rows = await source.query(
      `SHOW GLOBAL STATUS WHERE Variable_name IN (?) ${mysqlStatusFamilies.map(() => 'OR Variable_name LIKE ?').join(' ')}`,
      [variables, ...mysqlStatusFamilies.map(({ prefix }) => `${prefix.replaceAll('_', '\\_')}%`)],
      signal,
    );
    const counters = globalStatusCounters(rows);
    const uptime = counters.mysql_global_status_uptime;
    if (uptime === undefined) throw new Error('SHOW GLOBAL STATUS has no Uptime');
    return { counters, readings: { uptimeSeconds: uptime, rateCounters: statusRateCounters(rows) } };
  },
};

/** SHOW GLOBAL STATUS rows as the exporter's series; values that are neither numbers nor switches are left out. */
export function globalStatusCounters(rows: readonly Row[]): Record<string, number> {
  const counters: Record<string, number> = {};
  for (const row of rows) {
    const name = textOf(row.Variable_name);
    const value = mysqlValue(row.Value);
    // Some variables hold text (Rsa_public_key, Ssl_cipher_list), some are empty: not series.
    if (value === null) continue;
    const family = mysqlStatusFamilies.find(({ prefix }) => name.startsWith(prefix));
    if (family === undefined) {
      counters[seriesKey(`mysql_global_status_${name.toLowerCase()}`)] = value;
      continue;
    }
    const label = name.slice(family.prefix.length).toLowerCase();
    if ('states' in family && !(family.states as readonly string[]).includes(label)) continue;
    counters[seriesKey(family.name, { [family.label]: label })] = value;
  }
  return counters;
}

/** The SHOW GLOBAL STATUS counters whose rates are catalog metrics, keyed by the rate's path; those the server lacks left out. */
export function statusRateCounters(rows: readonly Row[]): Partial<Record<MetricPath, number>> {
  const values = new Map(rows.map((row) => [textOf(row.Variable_name), mysqlValue(row.Value)]));
  const rateCounters: Partial<Record<MetricPath, number>> = {};
  for (const name of mysqlRatedStatusVariables) {
    const value = values.get(name);
    if (value !== undefined && value !== null) rateCounters[mysqlStatusRatePath(name)] = value;
  }
  return rateCounters;
}
