import type { Db } from '../../storage/open-database.js';
import { AuditLog } from './audit-log.js';
import { AuditRepository } from './audit-repository.js';
import { auditRoutes } from './audit-routes.js';
import { AuditRetentionJob } from './audit-retention-job.js';

/** The organizations' audit log: written by the account features and API keys, read through its route, expired by its job. */
export function createAudit({ db }: { db: Db }) {
  const audit = new AuditLog(new AuditRepository(db));
  return { audit, retention: new AuditRetentionJob(audit), routes: () => auditRoutes(audit) };
}
