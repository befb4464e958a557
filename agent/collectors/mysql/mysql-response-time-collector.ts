import type { Collector, HistogramBucket } from '../../collector.js';
import type { MysqlSource } from '../../sources/mysql-source.js';
import { numberOf, textOf, type Row } from '../../sources/row.js';

/**
 * MariaDB's latency histogram, information_schema.QUERY_RESPONSE_TIME: server-wide, the agent's
 * own queries included. Buckets are bounded by powers of query_response_time_range_base (10 by
 * default) and report their total time; the last one, 'TOO LONG', has neither bound nor time.
 * Not applicable to MySQL, which has events_statements_histogram_global instead.
 */
export const mysqlResponseTimeCollector: Collector<MysqlSource> = {
  name: 'mysql_query_response_time',
  async collect(source, { signal }) {
    if ((await source.flavor(signal)) !== 'mariadb') return {};
    const [plugin] = await source.query(
      `SELECT PLUGIN_STATUS AS status FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'QUERY_RESPONSE_TIME'`,
      [],
      signal,
    );
    if (textOf(plugin?.status) !== 'ACTIVE') {
      throw new Error(
        "the QUERY_RESPONSE_TIME plugin is not installed (INSTALL SONAME 'query_response_time'): " +
          'latency percentiles are estimated from statement digests',
      );
    }
    const [stats] = await source.query('SELECT @@query_response_time_stats AS enabled', [], signal);
    if (numberOf(stats?.enabled) !== 1) {
      throw new Error(
        'query_response_time_stats is OFF, so QUERY_RESPONSE_TIME counts nothing: ' +
          'latency percentiles are estimated from statement digests',
      );
    }
    const rows = await source.query('SELECT TIME, COUNT, TOTAL FROM information_schema.QUERY_RESPONSE_TIME', [], signal);
    return { readings: { histogram: toBuckets(rows) } };
  },
};

function toBuckets(rows: readonly Row[]): HistogramBucket[] {
  let lowerMs = 0;
  return rows.map((row) => {
    const upperMs = secondsToMs(row.TIME) ?? Infinity;
    const bucket = { lowerMs, upperMs, count: numberOf(row.COUNT), sumMs: secondsToMs(row.TOTAL) };
    lowerMs = upperMs;
    return bucket;
  });
}

/** Seconds as the plugin prints them ('      0.000100'), or null for 'TOO LONG'. */
function secondsToMs(value: unknown): number | null {
  const seconds = Number(textOf(value).trim());
  return Number.isFinite(seconds) ? seconds * 1000 : null;
}
