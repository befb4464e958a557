import type { Collector } from '../../collector.js';
import { pgUserTablesColumns, seriesKey } from '../../../../common/exporter-catalog.js';
import type { PostgresSource } from '../../../sources/postgres-source.js';
import { nullableNumberOf, textOf, type Row } from '../../../sources/row.js';

const columns = [...pgUserTablesColumns.counter, ...pgUserTablesColumns.gauge];
const timestamp = /^last_/;

/**
 * The access and maintenance counters of the monitored database's `largestTables` largest tables,
 * as postgres_exporter names them. Largest by pg_class.relpages, the size as of the last vacuum or
 * analyze: pg_table_size would wait for the lock of a table being altered.
 */
export const createPostgresUserTablesCollector = (largestTables: number): Collector<PostgresSource> => ({
  name: 'pg_stat_user_tables',
  async collect(source, { signal }) {
    const selected = columns.map((column) => (timestamp.test(column) ? `extract(epoch FROM s.${column}) AS ${column}` : `s.${column}`));
    const rows = await source.query(
      `SELECT current_database() AS datname, s.schemaname, s.relname, ${selected.join(', ')}
         FROM pg_stat_user_tables s
         JOIN pg_class c ON c.oid = s.relid
        ORDER BY c.relpages DESC, s.relid
        LIMIT $1`,
      [largestTables],
      signal,
    );
    return { counters: userTableCounters(rows) };
  },
});

/** The exporter's series of each table row; a column without a value (no index scanned, never vacuumed) is 0, as the exporter has it. */
export function userTableCounters(rows: readonly Row[]): Record<string, number> {
  const counters: Record<string, number> = {};
  for (const row of rows) {
    const labels = { datname: textOf(row.datname), schemaname: textOf(row.schemaname), relname: textOf(row.relname) };
    for (const column of columns) counters[seriesKey(`pg_stat_user_tables_${column}`, labels)] = nullableNumberOf(row[column]) ?? 0;
  }
  return counters;
}
