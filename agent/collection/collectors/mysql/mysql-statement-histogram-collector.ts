import type { Collector } from '../../collector.js';
import type { MysqlSource } from '../../../sources/mysql-source.js';
import { numberOf } from '../../../sources/row.js';

const PICOSECONDS_PER_MS = 1e9;

/**
 * MySQL's statement latency histogram of the monitored schema (8.0.19 and later): the digests'
 * histograms share their buckets, so they add up bucket by bucket. Not applicable to MariaDB,
 * whose only histogram (QUERY_RESPONSE_TIME) is server-wide: there the percentiles are
 * estimated from the digests.
 */
export const mysqlStatementHistogramCollector: Collector<MysqlSource> = {
  name: 'mysql_statement_histogram',
  async collect(source, { signal }) {
    if ((await source.flavor(signal)) !== 'mysql') return {};
    const [table] = await source.query(
      `SELECT COUNT(*) AS present FROM information_schema.TABLES
        WHERE TABLE_SCHEMA = 'performance_schema' AND TABLE_NAME = 'events_statements_histogram_by_digest'`,
      [],
      signal,
    );
    if (numberOf(table?.present) === 0) {
      throw new Error(
        'performance_schema.events_statements_histogram_by_digest needs MySQL 8.0.19 or later: ' +
          'latency percentiles are estimated from statement digests',
      );
    }
    const rows = await source.query(
      `SELECT MIN(BUCKET_TIMER_LOW) AS low, MAX(BUCKET_TIMER_HIGH) AS high, SUM(COUNT_BUCKET) AS count
         FROM performance_schema.events_statements_histogram_by_digest
        WHERE SCHEMA_NAME = ?
        GROUP BY BUCKET_NUMBER
        ORDER BY BUCKET_NUMBER`,
      [source.schema],
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
