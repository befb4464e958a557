import type { Collector } from '../../collector.js';
import type { PostgresSource } from '../../../sources/postgres-source.js';
import { numberOf, textOf } from '../../../sources/row.js';
import { seriesKey } from '../../../../common/exporter-catalog.js';
import { leadingVersion } from '../leading-version.js';

export const postgresDatabaseCollector: Collector<PostgresSource> = {
  name: 'pg_database',
  async collect(source, { signal }) {
    const [row] = await source.query(
      `SELECT current_setting('server_version') AS version,
              pg_database_size(current_database()) AS size_bytes,
              extract(epoch FROM pg_postmaster_start_time()) AS start_time`,
      [],
      signal,
    );
    return {
      version: leadingVersion(textOf(row?.version)),
      values: { database_size_bytes: numberOf(row?.size_bytes) },
      counters: { [seriesKey('pg_postmaster_start_time_seconds')]: numberOf(row?.start_time) },
    };
  },
};
