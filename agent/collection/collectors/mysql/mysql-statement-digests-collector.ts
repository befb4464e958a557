import type { Collector } from '../../collector.js';
import type { MysqlSource } from '../../../sources/mysql-source.js';
import { numberOf, textOf } from '../../../sources/row.js';

const PICOSECONDS_PER_MS = 1e9;

/**
 * Digest texts of the statements that end a transaction: COMMIT and ROLLBACK (WORK, AND [NO]
 * CHAIN, RELEASE), XA COMMIT and XA ROLLBACK; ROLLBACK TO SAVEPOINT does not end one.
 */
const ENDS_TRANSACTION = /^(XA\s+)?(COMMIT|ROLLBACK)\b(?!\s+(WORK\s+)?TO\b)/i;

/**
 * Requests for a plan (EXPLAIN, DESCRIBE, DESC): they run nothing of the workload. The advisor
 * must EXPLAIN with the monitored schema as default schema, and that digest cannot be kept out
 * of the schema's without UPDATE on performance_schema.threads.
 */
const ASKS_FOR_PLAN = /^(EXPLAIN|DESCRIBE|DESC)\b/i;

/**
 * Lifetime statistics per statement digest of the monitored schema, that is of the statements
 * run while it was the session's default schema, requests for a plan left out; the runner turns
 * them into per-interval deltas, the query rate, the average latency and, without a histogram,
 * estimated percentiles. The
 * engine keeps no deviation per digest, so each digest is taken at its mean.
 *
 * Transactions are the statements that ended one explicitly. The engine counts no transactions
 * per schema: an autocommitted statement is a transaction of its own but its digest does not say
 * whether it ran in autocommit mode, so those are left out.
 */
export const mysqlStatementDigestsCollector: Collector<MysqlSource> = {
  name: 'mysql_statement_digests',
  explainsMissingLatency: true,
  readsRateCounters: true,
  async collect(source, { signal }) {
    const rows = await source.query(
      `SELECT DIGEST AS digest, DIGEST_TEXT AS query, COUNT_STAR AS calls,
              SUM_TIMER_WAIT AS total_ps, MAX_TIMER_WAIT AS max_ps,
              SUM_ROWS_SENT + SUM_ROWS_AFFECTED AS rows_total
         FROM performance_schema.events_statements_summary_by_digest
        WHERE SCHEMA_NAME = ? AND DIGEST IS NOT NULL`,
      [source.schema],
      signal,
    );
    // The table is there and empty when performance_schema is off: asked only then.
    if (rows.length === 0) await requirePerformanceSchema(source, signal);
    const statements = rows
      .filter((row) => !ASKS_FOR_PLAN.test(textOf(row.query)))
      .map((row) => ({
        key: textOf(row.digest),
        queryId: textOf(row.digest),
        query: textOf(row.query),
        calls: numberOf(row.calls),
        totalMs: numberOf(row.total_ps) / PICOSECONDS_PER_MS,
        sumSquaresMs2: null,
        maxMs: numberOf(row.max_ps) / PICOSECONDS_PER_MS,
        rows: numberOf(row.rows_total),
      }));
    const transactions = statements
      .filter((statement) => ENDS_TRANSACTION.test(statement.query))
      .reduce((sum, statement) => sum + statement.calls, 0);
    return {
      readings: { statements, transactions },
      ...(statements.length === 0 && { latencyNote: 'performance_schema has no statement digests for this database yet' }),
    };
  },
};

async function requirePerformanceSchema(source: MysqlSource, signal: AbortSignal): Promise<void> {
  const [setting] = await source.query('SELECT @@performance_schema AS enabled', [], signal);
  if (numberOf(setting?.enabled) !== 1) {
    throw new Error(
      'performance_schema is OFF (performance_schema = ON in the server configuration): ' +
        'no statement statistics, query rate or latency',
    );
  }
}
