import { performance } from 'node:perf_hooks';
import type { BackgroundJob } from '../jobs/background-job.js';
import type { AlertEvaluationService } from './alert-evaluation-service.js';

/** Every database alerts are evaluated for (the databases feature). */
export interface AlertedDatabases {
  ids(): string[];
}

/**
 * Alert evaluation of every database on a timer, as a background job: ingest evaluates the databases
 * a batch touched, this notices silence ("unreachable for 2 minutes" must fire when samples stop).
 */
export class AlertEvaluationJob implements BackgroundJob {
  readonly name = 'alert_evaluation';
  readonly periodMs = 15_000;
  #pending: string[] | undefined;

  constructor(
    private readonly alerting: AlertEvaluationService,
    private readonly databases: AlertedDatabases,
  ) {}

  slice(now: Date, budgetMs: number): boolean {
    const deadline = performance.now() + budgetMs;
    const pending = (this.#pending ??= this.databases.ids());
    try {
      for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
        this.alerting.evaluateOnItsOwn(id, now);
        if (pending.length > 0 && performance.now() >= deadline) return true;
      }
    } catch (error) {
      this.#pending = undefined;
      throw error;
    }
    this.#pending = undefined;
    return false;
  }
}
