import type { Db } from '../storage/open-database.js';
import { AgentsRepository } from './agents-repository.js';
import { agentsRoutes } from './agents-routes.js';
import { AgentsService, type AssignableDatabases } from './agents-service.js';

/** The remote agents. Their records serve the ports of databases (assignable agents) and ingest (spool reports). */
export function createAgents({ db, databases }: { db: Db; databases: AssignableDatabases }) {
  const records = new AgentsRepository(db);
  const agents = new AgentsService(records, databases);
  return { agents, records, routes: (now: () => Date) => agentsRoutes(agents, now) };
}
