import { runPass, type SynchronousJob } from '../jobs/background-job.js';

/** A rollup pass, then a retention pass, each to its end at once (a serving process schedules them as jobs). */
export function maintainMetricStorage(storage: { rollups: SynchronousJob; retention: SynchronousJob }, now: Date): void {
  runPass(storage.rollups, now);
  runPass(storage.retention, now);
}
