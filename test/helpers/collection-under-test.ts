import pino from 'pino';
import { CollectionRunner } from '../../agent/collection/collection-runner.js';
import type { Collector, Pingable } from '../../agent/collection/collector.js';
import { MysqlSource } from '../../agent/sources/mysql-source.js';
import { PostgresSource } from '../../agent/sources/postgres-source.js';
import type { ThrowawayMysqlDatabase } from './throwaway-mysql-database.js';
import type { ThrowawayPostgresDatabase } from './throwaway-postgres-database.js';

type TestWithTeardown = { teardown(fn: () => unknown): void };

const sourceOptions = { statementTimeoutMs: 5000, connectTimeoutMs: 5000 };

/** The agent's source on a throwaway database; when the test ends the source closes, then the database is dropped. */
export function postgresSourceOn(t: TestWithTeardown, database: ThrowawayPostgresDatabase): PostgresSource {
  const source = new PostgresSource(database.settings, sourceOptions);
  t.teardown(async () => {
    await source.close();
    await database.drop();
  });
  return source;
}

/** postgresSourceOn for MySQL and MariaDB. */
export function mysqlSourceOn(t: TestWithTeardown, database: ThrowawayMysqlDatabase): MysqlSource {
  const source = new MysqlSource(database.settings, sourceOptions);
  t.teardown(async () => {
    await source.close();
    await database.drop();
  });
  return source;
}

/** A collection runner as the agent builds one, logging nothing unless given a logger. */
export function collectionRunner<S extends Pingable>(
  source: S,
  collectors: readonly Collector<S>[],
  logger = pino({ level: 'silent' }),
): CollectionRunner<S> {
  return new CollectionRunner({ source, logger, collectors });
}
