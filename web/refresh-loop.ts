import { ApiError } from './api.js';

export interface RefreshLoopOptions {
  /** Fetches and draws; returns how long to wait before the next time. */
  refresh: () => Promise<number>;
  /** Told what went wrong in words, or undefined once a refresh succeeds again. */
  onProblem: (text: string | undefined) => void;
}

/**
 * Refreshes a page's data in place, at the pace `refresh` asks for, while the page is visible (a tab
 * in the background spends none of the hour's API budget). When that budget is spent, it waits until
 * the reset the API names; a failed refresh is retried after a minute.
 */
export function startRefreshLoop({ refresh, onProblem }: RefreshLoopOptions): { now: () => void } {
  let timer: number | undefined;
  let running = false;
  let due = false;
  /** Asked for while a refresh ran: its answer may be of what was asked before. */
  let again = false;

  async function run(): Promise<void> {
    window.clearTimeout(timer);
    if (document.visibilityState === 'hidden') {
      due = true;
      return;
    }
    if (running) {
      again = true;
      return;
    }
    running = true;
    let waitMs = 60_000;
    try {
      waitMs = await refresh();
      onProblem(undefined);
    } catch (error) {
      if (error instanceof ApiError && error.retryAt !== undefined) {
        waitMs = Math.max(1000, error.retryAt.getTime() - Date.now());
        onProblem(`This hour's API request budget is spent: the page refreshes again at ${error.retryAt.toLocaleTimeString()}.`);
      } else if (error instanceof ApiError && error.status === 401) {
        onProblem('Your session has ended: reload the page to sign in again.');
        return;
      } else {
        onProblem(`The last refresh failed (${error instanceof Error ? error.message : String(error)}); retrying in a minute.`);
      }
    } finally {
      running = false;
    }
    if (again) {
      again = false;
      waitMs = 0;
    }
    timer = window.setTimeout(() => void run(), waitMs);
  }

  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && due) {
      due = false;
      void run();
    }
  });
  void run();
  return { now: () => void run() };
}
