import type { Collector } from '../../collector.js';
import type { MysqlSource } from '../../sources/mysql-source.js';
import { numberOf } from '../../sources/row.js';

const PICOSECONDS_PER_MS = 1e9;

/**
 * MySQL's global statement latency histogram (8.0.19 and later), server-wide. The agent's own
 * statements are not instrumented when it may turn that off (see MysqlSource). Not applicable
 * to MariaDB, which has QUERY_RESPONSE_TIME instead.
 */
export const mysqlStatementHistogramCollector: Collector<MysqlSource> = {
  name: 'mysql_statement_histogram',
  async collect(source, { signal }) {
    if ((await source.flavor(signal)) !== 'mysql') return {};
    const [table] = await source.query(
      `SELECT COUNT(*) AS present FROM information_schema.TABLES
        WHERE TABLE_SCHEMA = 'performance_schema' AND TABLE_NAME = 'events_statements_histogram_global'`,
      [],
      signal,
    );
    if (numberOf(table?.present) === 0) {
      throw new Error(
        'performance_schema.events_statements_histogram_global needs MySQL 8.0.19 or later: ' +
          'latency percentiles are estimated from statement digests',
      );
    }
    const rows = await source.query(
      `SELECT BUCKET_TIMER_LOW AS low, BUCKET_TIMER_HIGH AS high, COUNT_BUCKET AS count
         FROM performance_schema.events_statements_histogram_global
        ORDER BY BUCKET_NUMBER`,
      [],
      signal,
    );
    const histogram = rows.map((row) => ({
      lowerMs: numberOf(row.low) / PICOSECONDS_PER_MS,
      upperMs: numberOf(row.high) / PICOSECONDS_PER_MS,
      count: numberOf(row.count),
      sumMs: null,
    }));
    return { readings: { histogram } };
  },
};
