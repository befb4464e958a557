import type { QueriesService } from '../queries/queries-service.js';
import type { RollupJob } from './rollup-job.js';

/** Folds new samples into the rollups, then drops what is past retention: samples, rollups, batch ids, slow queries. */
export function maintainMetricStorage(storage: { rollups: RollupJob; queries: Pick<QueriesService, 'expire'> }, now: Date): void {
  storage.rollups.fold();
  storage.rollups.expire(now.getTime());
  storage.queries.expire(now);
}
