import type { Collector } from '../../collector.js';
import type { MysqlSource } from '../../../sources/mysql-source.js';
import { mysqlDatabaseCollector } from './mysql-database-collector.js';
import { mysqlGlobalStatusCollector } from './mysql-global-status-collector.js';
import { mysqlGlobalVariablesCollector } from './mysql-global-variables-collector.js';
import { mysqlProcesslistCollector } from './mysql-processlist-collector.js';
import { mysqlProcesslistThreadsCollector } from './mysql-processlist-threads-collector.js';
import { mysqlReplicaStatusCollector } from './mysql-replica-status-collector.js';
import { mysqlStatementDigestsCollector } from './mysql-statement-digests-collector.js';
import { mysqlStatementHistogramCollector } from './mysql-statement-histogram-collector.js';

/** For MySQL and MariaDB alike; the histogram collector contributes only on MySQL. */
export const mysqlCollectors: readonly Collector<MysqlSource>[] = [
  mysqlDatabaseCollector,
  mysqlProcesslistCollector,
  mysqlGlobalStatusCollector,
  mysqlStatementHistogramCollector,
  mysqlStatementDigestsCollector,
  mysqlGlobalVariablesCollector,
  mysqlProcesslistThreadsCollector,
  mysqlReplicaStatusCollector,
];
