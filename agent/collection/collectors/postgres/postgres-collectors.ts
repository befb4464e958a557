import type { Collector } from '../../collector.js';
import type { PostgresSource } from '../../../sources/postgres-source.js';
import { postgresActivityCollector } from './postgres-activity-collector.js';
import { postgresBgwriterCollector } from './postgres-bgwriter-collector.js';
import { postgresDatabaseCollector } from './postgres-database-collector.js';
import { postgresLocksCollector } from './postgres-locks-collector.js';
import { postgresReplicationCollector } from './postgres-replication-collector.js';
import { postgresSettingsCollector } from './postgres-settings-collector.js';
import { postgresStatDatabaseCollector } from './postgres-stat-database-collector.js';
import { postgresStatementsCollector } from './postgres-statements-collector.js';
import { postgresUserTablesCollector } from './postgres-user-tables-collector.js';

export const postgresCollectors: readonly Collector<PostgresSource>[] = [
  postgresDatabaseCollector,
  postgresActivityCollector,
  postgresStatDatabaseCollector,
  postgresStatementsCollector,
  postgresLocksCollector,
  postgresBgwriterCollector,
  postgresReplicationCollector,
  postgresSettingsCollector,
  postgresUserTablesCollector,
];
