import type { Collector } from '../../collector.js';
import { pgBgwriterColumns, pgCheckpointerColumns, seriesKey } from '../../../../common/exporter-catalog.js';
import type { PostgresSource } from '../../../sources/postgres-source.js';
import { nullableNumberOf, numberOf, type Row } from '../../../sources/row.js';

/** PostgreSQL 17 moved the checkpoint columns of pg_stat_bgwriter to pg_stat_checkpointer and the backend ones to pg_stat_io. */
const checkpointerSince = 170_000;

/**
 * The server's background writer and checkpointer counters, with postgres_exporter's names.
 * `to_jsonb` keeps one statement for every version: a column a version lacks is simply absent.
 */
export const postgresBgwriterCollector: Collector<PostgresSource> = {
  name: 'pg_stat_bgwriter',
  async collect(source, { signal }) {
    const [bgwriter] = await source.query(
      `SELECT current_setting('server_version_num')::int AS version_num, to_jsonb(b) AS stats FROM pg_stat_bgwriter b`,
      [],
      signal,
    );
    if (bgwriter === undefined) throw new Error('pg_stat_bgwriter has no row');
    const checkpointer =
      numberOf(bgwriter.version_num) >= checkpointerSince
        ? (await source.query('SELECT to_jsonb(c) AS stats FROM pg_stat_checkpointer c', [], signal))[0]
        : undefined;
    return { counters: bgwriterCounters(bgwriter, checkpointer) };
  },
};

/** The exporter's series from the rows read: pg_stat_bgwriter's, and pg_stat_checkpointer's when there is one. */
export function bgwriterCounters(bgwriter: Row, checkpointer: Row | undefined): Record<string, number> {
  return {
    ...columnCounters('pg_stat_bgwriter', pgBgwriterColumns, bgwriter.stats),
    ...(checkpointer && columnCounters('pg_stat_checkpointer', pgCheckpointerColumns, checkpointer.stats)),
  };
}

function columnCounters(view: string, columns: readonly string[], stats: unknown): Record<string, number> {
  const values = (typeof stats === 'string' ? JSON.parse(stats) : stats) as Record<string, unknown>;
  const counters: Record<string, number> = {};
  for (const column of columns) {
    const value = nullableNumberOf(values[column]);
    if (value !== null) counters[seriesKey(`${view}_${column}_total`)] = value;
  }
  return counters;
}
