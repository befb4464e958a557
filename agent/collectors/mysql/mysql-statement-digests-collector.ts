import type { Collector } from '../../collector.js';
import type { MysqlSource } from '../../sources/mysql-source.js';
import { numberOf, textOf } from '../../sources/row.js';

const PICOSECONDS_PER_MS = 1e9;

/**
 * Lifetime statistics per statement digest of the monitored schema; the runner turns them into
 * per-interval deltas, the average latency and, without a histogram, estimated percentiles.
 * The engine keeps no deviation per digest, so each digest is taken at its mean.
 */
export const mysqlStatementDigestsCollector: Collector<MysqlSource> = {
  name: 'mysql_statement_digests',
  async collect(source, { signal }) {
    const [setting] = await source.query('SELECT @@performance_schema AS enabled', [], signal);
    if (numberOf(setting?.enabled) !== 1) {
      throw new Error(
        'performance_schema is OFF (performance_schema = ON in the server configuration): ' +
          'no statement statistics or latency',
      );
    }
    const rows = await source.query(
      `SELECT DIGEST AS digest, DIGEST_TEXT AS query, COUNT_STAR AS calls,
              SUM_TIMER_WAIT AS total_ps, MAX_TIMER_WAIT AS max_ps,
              SUM_ROWS_SENT + SUM_ROWS_AFFECTED AS rows_total
         FROM performance_schema.events_statements_summary_by_digest
        WHERE SCHEMA_NAME = DATABASE() AND DIGEST IS NOT NULL`,
      [],
      signal,
    );
    const statements = rows.map((row) => ({
      key: textOf(row.digest),
      queryId: textOf(row.digest),
      query: textOf(row.query),
      calls: numberOf(row.calls),
      totalMs: numberOf(row.total_ps) / PICOSECONDS_PER_MS,
      sumSquaresMs2: null,
      maxMs: numberOf(row.max_ps) / PICOSECONDS_PER_MS,
      rows: numberOf(row.rows_total),
    }));
    return { readings: { statements } };
  },
};
