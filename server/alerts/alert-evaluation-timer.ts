import type { Logger } from 'pino';
import type { AlertEvaluationService } from './alert-evaluation-service.js';

/** Re-evaluates every database on a fixed period, so that silence (no samples) is noticed; stop() ends it. */
export class AlertEvaluationTimer {
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly evaluation: AlertEvaluationService,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
    private readonly periodMs = 15_000,
  ) {}

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.runOnce(), this.periodMs);
  }

  runOnce(): void {
    try {
      const changes = this.evaluation.evaluateAll(this.now());
      if (changes > 0) this.logger.debug({ changes }, 'alert evaluation');
    } catch (error) {
      this.logger.error({ err: error }, 'alert evaluation failed');
    }
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
