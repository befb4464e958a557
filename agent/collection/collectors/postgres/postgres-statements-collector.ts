import { seriesKey } from '../../../../common/exporter-catalog.js';
import type { Collector, StatementTotals } from '../../collector.js';
import { AGENT_MARKER } from '../../../sources/connection-settings.js';
import type { PostgresSource } from '../../../sources/postgres-source.js';
import { numberOf, textOf, type Row } from '../../../sources/row.js';

/**
 * Lifetime statistics of the monitored database's statements from pg_stat_statements; the
 * runner turns them into per-interval deltas. Only top-level statements count (with
 * pg_stat_statements.track = all, statements inside functions are listed too), and the agent's
 * own are left out by their marker comment. Never resets the view: other tools read it too. The
 * `topStatements` that took the most time are also exported as pg_stat_statements_*_total series.
 */
export const createPostgresStatementsCollector = (topStatements: number): Collector<PostgresSource> => ({
  name: 'pg_stat_statements',
  explainsMissingLatency: true,
  async collect(source, { signal }) {
    const [extension] = await source.query(
      `SELECT n.nspname AS schema,
              array(SELECT attname::text
                      FROM pg_attribute
                     WHERE attrelid = to_regclass(format('%I.pg_stat_statements', n.nspname))
                       AND attnum > 0 AND NOT attisdropped) AS columns
         FROM pg_extension e
         JOIN pg_namespace n ON n.oid = e.extnamespace
        WHERE e.extname = 'pg_stat_statements'`,
      [],
      signal,
    );
    if (extension === undefined) {
      throw new Error(
        'pg_stat_statements is not installed in this database (CREATE EXTENSION pg_stat_statements, ' +
          'with pg_stat_statements in shared_preload_libraries): no query rate, latency or statements',
      );
    }
    const rows = await source.query(statementsQuery(textOf(extension.schema), columnsOf(extension)), [
      `%${AGENT_MARKER}%`,
    ], signal);
    return {
      counters: topStatementCounters(rows, topStatements),
      readings: { statements: rows.map(toTotals) },
      ...(rows.length === 0 && { latencyNote: 'pg_stat_statements has no statements for this database yet' }),
    };
  },
});

function columnsOf(extension: Row): Set<string> {
  return new Set(Array.isArray(extension.columns) ? extension.columns.map(String) : []);
}

/** Column names changed in pg_stat_statements 1.8 (PostgreSQL 13): total_time became total_exec_time. */
function statementsQuery(schema: string, columns: Set<string>): string {
  const time = columns.has('total_exec_time') ? 'exec_time' : 'time';
  const topLevelOnly = columns.has('toplevel') ? 'AND toplevel' : '';
  return `SELECT userid::text AS userid, pg_get_userbyid(userid) AS username, current_database() AS datname,
                 queryid::text AS queryid, query, calls, rows,
                 total_${time} AS total_ms, mean_${time} AS mean_ms,
                 stddev_${time} AS stddev_ms, max_${time} AS max_ms
            FROM ${quoteIdentifier(schema)}.pg_stat_statements
           WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND queryid IS NOT NULL
             AND query NOT LIKE $1
             ${topLevelOnly}`;
}

/** postgres_exporter's pg_stat_statements series for the `limit` statements with the most total time. */
export function topStatementCounters(rows: readonly Row[], limit: number): Record<string, number> {
  const counters: Record<string, number> = {};
  const top = [...rows].sort((a, b) => numberOf(b.total_ms) - numberOf(a.total_ms)).slice(0, limit);
  for (const row of top) {
    const labels = { user: textOf(row.username), datname: textOf(row.datname), queryid: textOf(row.queryid) };
    counters[seriesKey('pg_stat_statements_calls_total', labels)] = numberOf(row.calls);
    counters[seriesKey('pg_stat_statements_seconds_total', labels)] = numberOf(row.total_ms) / 1000;
    counters[seriesKey('pg_stat_statements_rows_total', labels)] = numberOf(row.rows);
  }
  return counters;
}

function toTotals(row: Row): StatementTotals {
  const calls = numberOf(row.calls);
  const meanMs = numberOf(row.mean_ms);
  const stddevMs = numberOf(row.stddev_ms);
  return {
    key: `${textOf(row.userid)}:${textOf(row.queryid)}`,
    queryId: textOf(row.queryid),
    query: textOf(row.query),
    calls,
    totalMs: numberOf(row.total_ms),
    // The view keeps a population deviation: sum of squares = n * (deviation² + mean²).
    sumSquaresMs2: calls * (stddevMs ** 2 + meanMs ** 2),
    maxMs: numberOf(row.max_ms),
    rows: numberOf(row.rows),
  };
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
