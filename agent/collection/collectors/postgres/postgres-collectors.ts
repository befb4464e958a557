import type { Collector } from '../../collector.js';
import type { PostgresSource } from '../../../sources/postgres-source.js';
import { postgresActivityCollector } from './postgres-activity-collector.js';
import { postgresBgwriterCollector } from './postgres-bgwriter-collector.js';
import { postgresDatabaseCollector } from './postgres-database-collector.js';
import { postgresLocksCollector } from './postgres-locks-collector.js';
import { postgresReplicationCollector } from './postgres-replication-collector.js';
import { postgresSettingsCollector } from './postgres-settings-collector.js';
import { postgresStatDatabaseCollector } from './postgres-stat-database-collector.js';
import { createPostgresStatementsCollector } from './postgres-statements-collector.js';
import { createPostgresUserTablesCollector } from './postgres-user-tables-collector.js';

/** How many statements and tables have series of their own (agent config `collection.top_statements`, `collection.largest_tables`). */
export interface PostgresSeriesLimits {
  topStatements: number;
  largestTables: number;
}

export const defaultPostgresSeriesLimits: PostgresSeriesLimits = { topStatements: 100, largestTables: 20 };

export function createPostgresCollectors(limits: PostgresSeriesLimits): Collector<PostgresSource>[] {
  return [
    postgresDatabaseCollector,
    postgresActivityCollector,
    postgresStatDatabaseCollector,
    createPostgresStatementsCollector(limits.topStatements),
    postgresLocksCollector,
    postgresBgwriterCollector,
    postgresReplicationCollector,
    postgresSettingsCollector,
    createPostgresUserTablesCollector(limits.largestTables),
  ];
}

export const postgresCollectors: readonly Collector<PostgresSource>[] = createPostgresCollectors(defaultPostgresSeriesLimits);
