/**
 * Per-interval deltas of cumulative counters.
 *
 * Two kinds of reset are told apart:
 * - The engine restarted (its uptime is shorter than the interval): every counter started again
 *   from zero at an instant we only know roughly, so no rate is given for that interval.
 * - A single value went down without a restart (a stats reset, an evicted statement entry that
 *   came back): it restarted from zero after the previous reading, so its current value is what
 *   accrued since, a lower bound of the interval's true increase. Rates, which need the whole
 *   interval, are not given; per-entry increases use the current value.
 */

export interface ReadingTime {
  atMs: number;
  uptimeSeconds?: number;
}

export interface Interval {
  seconds: number;
  restarted: boolean;
}

/** Engines report uptime in whole seconds; allow that much disagreement with our own clock. */
const UPTIME_TOLERANCE_SECONDS = 1;

export function measureInterval(previous: ReadingTime, current: ReadingTime): Interval | null {
  const seconds = (current.atMs - previous.atMs) / 1000;
  if (!(seconds > 0)) return null;
  const restarted =
    current.uptimeSeconds !== undefined &&
    current.uptimeSeconds + UPTIME_TOLERANCE_SECONDS < seconds;
  return { seconds, restarted };
}

/** Increase of one entry's cumulative value; an entry absent before appeared within the interval. */
export function counterIncrease(previous: number | undefined, current: number): number {
  if (previous === undefined || current < previous) return current;
  return current - previous;
}

/** Per-second rate of a counter, or null when the interval gives no honest rate. */
export function counterRate(
  previous: number | undefined,
  current: number | undefined,
  interval: Interval | null,
): number | null {
  if (previous === undefined || current === undefined || interval === null) return null;
  if (interval.restarted || current < previous) return null;
  return (current - previous) / interval.seconds;
}
