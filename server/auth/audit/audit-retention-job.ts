import type { BackgroundJob } from '../../jobs/background-job.js';
import { auditExpiryBatch, type AuditLog } from './audit-log.js';

/** Drops audit entries past their 400 days, one bounded delete per slice (a few milliseconds). */
export class AuditRetentionJob implements BackgroundJob {
  readonly name = 'audit_retention';
  readonly periodMs = 3_600_000;

  constructor(private readonly audit: Pick<AuditLog, 'expire'>) {}

  slice(now: Date): boolean {
    return this.audit.expire(now) === auditExpiryBatch;
  }
}
