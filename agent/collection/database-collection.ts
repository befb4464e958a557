import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Assignment } from '../assignments/assignment.js';
import { CollectionRunner } from './collection-runner.js';
import type { Collector } from './collector.js';
import { createHostCollector } from './collectors/host.js';
import { mysqlCollectors } from './collectors/mysql/mysql-collectors.js';
import { createPostgresCollectors, defaultPostgresSeriesLimits, type PostgresSeriesLimits } from './collectors/postgres/postgres-collectors.js';
import type { Snapshot } from '../../common/agent-protocol/snapshot.js';
import type { SourceOptions } from '../sources/connection-settings.js';
import type { MysqlSource } from '../sources/mysql-source.js';
import type { PostgresSource } from '../sources/postgres-source.js';

/** Everything needed to collect one assigned database: its connection and its runner. */
export interface DatabaseCollection {
  /** One cycle that started `now`, ended by `signal` (the scheduler's deadline). */
  collect(now: Date, signal: AbortSignal): Promise<Snapshot>;
  close(): Promise<void>;
}

export interface DatabaseCollectionOptions {
  logger: Logger;
  /** The cycle's deadline: the engine-side statement timeout, a backstop should a cancel not reach the engine. */
  timeoutMs: number;
  /** Where procfs is mounted, for the host collector. */
  procRoot: string;
  /** The file system whose usage is reported as disk_usage. */
  diskPath: string;
  postgresSeriesLimits?: PostgresSeriesLimits;
}

/**
 * The collection of one assigned database. Its source, and with it the engine's driver (pg or
 * mysql2), is loaded at the first cycle: an agent that monitors only PostgreSQL never loads mysql2,
 * nor the other way round.
 */
export function createDatabaseCollection(assignment: Assignment, options: DatabaseCollectionOptions): DatabaseCollection {
  let opened: Promise<DatabaseCollection> | undefined;
  const open = (): Promise<DatabaseCollection> => (opened ??= openCollection(assignment, options));
  return {
    collect: async (now, signal) => {
      const openingMs = performance.now();
      const collection = await open();
      // The first cycle loads the engine's driver before its runner starts, which takes `now` as its own start.
      return collection.collect(new Date(now.getTime() + Math.round(performance.now() - openingMs)), signal);
    },
    close: async () => {
      if (opened !== undefined) await (await opened).close();
    },
  };
}

/** Builds the source and the collectors (the engine's set, then the host) for one assigned database. */
async function openCollection(assignment: Assignment, options: DatabaseCollectionOptions): Promise<DatabaseCollection> {
  const { logger, timeoutMs } = options;
  const sourceOptions: SourceOptions = { statementTimeoutMs: timeoutMs, connectTimeoutMs: Math.min(timeoutMs, 10_000) };
  const host = createHostCollector({ procRoot: options.procRoot, diskPath: options.diskPath });
  if (assignment.type === 'postgresql') {
    const { PostgresSource } = await import('../sources/postgres-source.js');
    const source = new PostgresSource(assignment.connection, sourceOptions);
    const collectors: Collector<PostgresSource>[] = [...createPostgresCollectors(options.postgresSeriesLimits ?? defaultPostgresSeriesLimits), host];
    return wrap(new CollectionRunner({ source, collectors, logger }), source);
  }
  const { MysqlSource } = await import('../sources/mysql-source.js');
  const source = new MysqlSource(assignment.connection, sourceOptions);
  const collectors: Collector<MysqlSource>[] = [...mysqlCollectors, host];
  return wrap(new CollectionRunner({ source, collectors, logger }), source);
}

function wrap(runner: Pick<DatabaseCollection, 'collect'>, source: { close(): Promise<void> }): DatabaseCollection {
  return { collect: (now, signal) => runner.collect(now, signal), close: () => source.close() };
}
