import type { Collector } from '../../collector.js';
import type { PostgresSource } from '../../../sources/postgres-source.js';
import { postgresActivityCollector } from './postgres-activity-collector.js';
import { postgresDatabaseCollector } from './postgres-database-collector.js';
import { postgresStatDatabaseCollector } from './postgres-stat-database-collector.js';
import { postgresStatementsCollector } from './postgres-statements-collector.js';

export const postgresCollectors: readonly Collector<PostgresSource>[] = [
  postgresDatabaseCollector,
  postgresActivityCollector,
  postgresStatDatabaseCollector,
  postgresStatementsCollector,
];
