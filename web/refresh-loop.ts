import { ApiError, apiBudget } from './api.js';
import { timeElement } from './format.js';

export interface RefreshLoopOptions {
  /** Fetches and draws; returns how long to wait before the next time. */
  refresh: () => Promise<number>;
  /** Told what went wrong in words, or undefined once a refresh succeeds again. */
  onProblem: (text: string | undefined) => void;
  /** Told when the next refresh comes later than the page asked, to make this hour's API budget last; undefined when it does not. */
  onPaced?: (next: Date | undefined) => void;
}

/** What a page says while its refreshes are spaced out. */
export const pacedNotice = (next: Date): (Node | string)[] => ['Next refresh at ', timeElement(next), ', spaced out so that this hour’s API request budget lasts.'];

/** The share of the hour's budget pacing leaves for what the user does (resolving an alert, a key, another page). */
const reservedShare = 0.1;

/**
 * How long to wait after a refresh that cost `calls` requests so that, at that pace, the budget the
 * last answer named lasts until it resets (the reserve left over); 0 when it allows refreshing at once.
 */
function budgetWaitMs(calls: number, now: number): number {
  const { limit, remaining, resetAt } = apiBudget;
  if (calls === 0 || limit === undefined || remaining === undefined || resetAt === undefined) return 0;
  const usable = remaining - Math.ceil(limit * reservedShare);
  const untilReset = Math.max(0, resetAt - now);
  return usable < calls ? untilReset : (untilReset * calls) / usable;
}

/**
 * Refreshes a page's data in place, at the pace `refresh` asks for, while the page is visible (a tab
 * in the background spends none of the hour's API budget), and no faster than makes that budget last
 * the hour. When it is spent all the same, it waits until the reset the API names; a failed refresh is
 * retried after a minute.
 */
export function startRefreshLoop({ refresh, onProblem, onPaced }: RefreshLoopOptions): { now: () => void } {
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
      const callsBefore = apiBudget.calls;
      const askedMs = await refresh();
      waitMs = Math.max(askedMs, budgetWaitMs(apiBudget.calls - callsBefore, Date.now()));
      onPaced?.(waitMs > askedMs ? new Date(Date.now() + waitMs) : undefined);
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
