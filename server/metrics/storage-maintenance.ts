import { runPass, type BackgroundJob } from '../jobs/background-job.js';

/** A rollup pass, then a retention pass, each to its end at once (a serving process schedules them as jobs). */
export function maintainMetricStorage(storage: { rollups: BackgroundJob; retention: BackgroundJob }, now: Date): void {
  runPass(storage.rollups, now);
  runPass(storage.retention, now);
}
