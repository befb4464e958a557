import type { DatabasesService } from '../databases/databases-service.js';
import type { Db, Transaction } from '../storage/open-database.js';
import { QueriesRepository, type ReachedSamples } from './queries-repository.js';
import { queriesRoutes } from './queries-routes.js';
import { QueriesService } from './queries-service.js';
import { StatementFoldJob, type StatementDatabases } from './statement-fold-job.js';

/** Slow queries: statement intervals kept as long as raw samples (`retentionMs`), folded into hours by `fold`. */
export function createQueries({
  db,
  retentionMs,
  databases,
  samples,
  transaction,
}: {
  db: Db;
  retentionMs: number;
  databases: StatementDatabases;
  samples: ReachedSamples;
  transaction: Transaction;
}) {
  const repository = new QueriesRepository(db, samples);
  const queries = new QueriesService(repository, retentionMs);
  return {
    queries,
    fold: new StatementFoldJob(repository, databases, transaction),
    routes: (databasesService: DatabasesService, now: () => Date) => queriesRoutes(databasesService, queries, now),
  };
}
