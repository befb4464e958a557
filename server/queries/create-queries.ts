import type { DatabasesService } from '../databases/databases-service.js';
import type { Db } from '../storage/open-database.js';
import { QueriesRepository } from './queries-repository.js';
import { queriesRoutes } from './queries-routes.js';
import { QueriesService } from './queries-service.js';

/** Slow queries: statement intervals kept as long as raw samples (`retentionMs`). */
export function createQueries({ db, retentionMs }: { db: Db; retentionMs: number }) {
  const queries = new QueriesService(new QueriesRepository(db), retentionMs);
  return { queries, routes: (databases: DatabasesService, now: () => Date) => queriesRoutes(databases, queries, now) };
}
