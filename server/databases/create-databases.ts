import type { SecretBox } from '../../common/secret-box.js';
import type { TableGenerations } from '../storage/generation-cache.js';
import type { Db, Transaction } from '../storage/open-database.js';
import { DatabaseListPages } from './database-list-pages.js';
import { DatabasesRepository } from './databases-repository.js';
import { databasesRoutes } from './databases-routes.js';
import { DatabasesService, type AgentDirectory, type ConnectionChangeListener, type DatabaseStatusReconciler } from './databases-service.js';
import { MonitoringResumesRepository } from './monitoring-resumes-repository.js';

export interface DatabasesDependencies {
  db: Db;
  secretBox: SecretBox;
  generations: TableGenerations;
  agents: AgentDirectory;
  statuses: DatabaseStatusReconciler;
  connectionChanges: ConnectionChangeListener;
  transaction: Transaction;
}

/**
 * The monitored databases. Besides its service it offers its records and the monitoring resumes
 * for the ports other features declare (alert evaluation, the /metrics scrape); they never import them.
 */
export function createDatabases({ db, secretBox, generations, agents, statuses, connectionChanges, transaction }: DatabasesDependencies) {
  const records = new DatabasesRepository(db);
  const databases = new DatabasesService(records, agents, secretBox, statuses, connectionChanges, transaction);
  const listPages = new DatabaseListPages(records, generations);
  return {
    databases,
    records,
    resumes: new MonitoringResumesRepository(db),
    routes: (now: () => Date) => databasesRoutes(databases, listPages, now),
  };
}
