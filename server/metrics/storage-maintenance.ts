import type { Services } from '../services.js';

/** Folds new samples into the rollups, then drops what is past retention: samples, rollups, batch ids, slow queries, audit entries. */
export function maintainMetricStorage(services: Services, now: Date): void {
  services.rollups.fold();
  services.rollups.expire(now.getTime());
  services.queries.expire(now);
  services.accounts.audit.expire(now);
}
