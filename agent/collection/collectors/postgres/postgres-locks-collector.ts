import type { Collector } from '../../collector.js';
import { pgLockModes, seriesKey } from '../../../../common/exporter-catalog.js';
import type { PostgresSource } from '../../../sources/postgres-source.js';
import { numberOf, textOf } from '../../../sources/row.js';

/** Locks held in the monitored database by mode, every mode listed (0 when none is held), as postgres_exporter reports them. */
export const postgresLocksCollector: Collector<PostgresSource> = {
  name: 'pg_locks',
  async collect(source, { signal }) {
    const rows = await source.query(
      `SELECT current_database() AS datname, m.mode, count(l.mode) AS count
         FROM unnest($1::text[]) AS m(mode)
         LEFT JOIN pg_locks l
           ON lower(l.mode) = m.mode
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        GROUP BY m.mode`,
      [pgLockModes],
      signal,
    );
    return {
      counters: Object.fromEntries(
        rows.map((row) => [seriesKey('pg_locks_count', { datname: textOf(row.datname), mode: textOf(row.mode) }), numberOf(row.count)]),
      ),
    };
  },
};
