import type { AgentsService } from '../agents/agents-service.js';
import type { DatabasesService } from '../databases/databases-service.js';
import type { QueriesService } from '../queries/queries-service.js';
import type { Db, Transaction } from '../storage/open-database.js';
import type { EventOutbox } from '../webhooks/event-outbox.js';
import type { OptimizationEvents } from './optimization-events.js';
import { OptimizationJobsRepository } from './optimization-jobs-repository.js';
import { optimizationJobsRoutes } from './optimization-jobs-routes.js';
import { OptimizationJobsService } from './optimization-jobs-service.js';
import { presentOptimization } from './optimization-presenter.js';
import { OptimizationsRepository } from './optimizations-repository.js';
import { optimizationsRoutes } from './optimizations-routes.js';
import { OptimizationsService } from './optimizations-service.js';

export interface OptimizationsDependencies {
  db: Db;
  databases: DatabasesService;
  queries: QueriesService;
  events: EventOutbox;
  transaction: Transaction;
}

/** Optimizations: requests and their measured effect (public), and the jobs agents lease to analyze and apply them. */
export function createOptimizations({ db, databases, queries, events, transaction }: OptimizationsDependencies) {
  const records = new OptimizationsRepository(db);
  const jobRecords = new OptimizationJobsRepository(db);
  const optimizationEvents: OptimizationEvents = {
    record: (type, row, now) => events.publish(row.org_id, type, { object: presentOptimization(row) }, now),
  };
  const optimizations = new OptimizationsService(records, jobRecords, databases, queries, optimizationEvents, transaction);
  const optimizationJobs = new OptimizationJobsService(jobRecords, records, optimizations, databases, transaction);
  return {
    optimizations,
    optimizationJobs,
    routes: (agents: AgentsService, now: () => Date) => [...optimizationsRoutes(optimizations, now), ...optimizationJobsRoutes(agents, optimizationJobs, now)],
  };
}
