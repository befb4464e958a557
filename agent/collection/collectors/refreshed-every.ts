import type { Collector, Contribution } from '../collector.js';

/** Server settings: a change needs a reload or a restart, and dashboards read them as limits, not as activity. */
export const settingsRefreshMs = 5 * 60_000;

/**
 * A collector of values that seldom change, run at most once per `periodMs` for each source (each
 * monitored database); in between, its last contribution stands. A failure is not kept: the
 * next cycle runs it again.
 */
export function refreshedEvery<Source extends object>(periodMs: number, collector: Collector<Source>): Collector<Source> {
  const last = new WeakMap<Source, { atMs: number; contribution: Contribution }>();
  return {
    ...collector,
    async collect(source, ctx) {
      const nowMs = ctx.now.getTime();
      const kept = last.get(source);
      // Either way: a clock set back does not hold the old values for as long as it went back.
      if (kept !== undefined && Math.abs(nowMs - kept.atMs) < periodMs) return kept.contribution;
      const contribution = await collector.collect(source, ctx);
      last.set(source, { atMs: nowMs, contribution });
      return contribution;
    },
  };
}
