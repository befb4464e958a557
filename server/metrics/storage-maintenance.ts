import { runPass } from '../jobs/background-job.js';
import type { Services } from '../services.js';

/** A rollup pass, then a retention pass, each to its end at once (a serving process schedules them as jobs). */
export function maintainMetricStorage(services: Services, now: Date): void {
  runPass(services.rollups, now);
  runPass(services.retention, now);
}
