import type { Logger } from 'pino';

export interface PeriodicTask {
  stop(): void;
}

/** Runs `work` every `periodMs`; a failing run is logged and the next one still happens. */
export function startPeriodicTask(name: string, periodMs: number, work: () => void, logger: Logger): PeriodicTask {
  const timer = setInterval(() => {
    try {
      work();
    } catch (error) {
      logger.error({ err: error, task: name }, 'periodic task failed');
    }
  }, periodMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
