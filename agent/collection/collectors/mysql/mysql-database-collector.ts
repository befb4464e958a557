import type { Collector } from '../../collector.js';
import type { MysqlSource } from '../../../sources/mysql-source.js';
import { numberOf, textOf } from '../../../sources/row.js';
import { leadingVersion } from '../leading-version.js';

export const mysqlDatabaseCollector: Collector<MysqlSource> = {
  name: 'mysql_database',
  async collect(source, { signal }) {
    const [row] = await source.query(
      `SELECT VERSION() AS version,
              (SELECT COALESCE(SUM(DATA_LENGTH + INDEX_LENGTH), 0)
                 FROM information_schema.TABLES
                WHERE TABLE_SCHEMA = ?) AS size_bytes`,
      [source.schema],
      signal,
    );
    return {
      version: leadingVersion(textOf(row?.version)),
      values: { database_size_bytes: numberOf(row?.size_bytes) },
    };
  },
};
