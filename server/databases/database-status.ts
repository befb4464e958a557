import type { DatabaseStatus } from './databases-schema.js';

/** Samples count as stopped after this many collection intervals without one. */
export const missedIntervalsBeforeStale = 2;

export type Reachability = 'pending' | 'reachable' | 'unreachable';
export type AlertSeverity = 'info' | 'warning' | 'critical';

export interface ReachabilityInput {
  nowMs: number;
  intervalMs: number;
  /** When samples started to count: the database's creation, or monitoring last switched back on. */
  monitoringSinceMs: number;
  /** The newest sample since then, whatever its age. */
  lastSample: { ts: number; reachable: number } | undefined;
}

/** The moment from which the absence of samples is measured: the newest sample, or the start of monitoring. */
export function staleReferenceMs(input: ReachabilityInput): number {
  return Math.max(input.lastSample?.ts ?? Number.NEGATIVE_INFINITY, input.monitoringSinceMs);
}

/** When samples counted as stopped (two intervals after the reference), if they had by `nowMs`. */
export function silenceStartMs(input: ReachabilityInput): number | undefined {
  const dueByMs = staleReferenceMs(input) + missedIntervalsBeforeStale * input.intervalMs;
  return input.nowMs > dueByMs ? dueByMs : undefined;
}

/** True when no sample arrived for longer than two intervals. */
export function isStale(input: ReachabilityInput): boolean {
  return silenceStartMs(input) !== undefined;
}

/**
 * Unreachable when the newest collection failed or samples stopped arriving for more than two
 * intervals (never having sent one counts too); pending while the first sample is still due.
 */
export function reachabilityOf(input: ReachabilityInput): Reachability {
  if (isStale(input)) return 'unreachable';
  if (input.lastSample === undefined) return 'pending';
  return input.lastSample.reachable === 1 ? 'reachable' : 'unreachable';
}

/**
 * The one place a monitored database's status is decided. Precedence: paused (the operator
 * switched monitoring off) > unreachable > critical > warning (an active alert of that severity;
 * info alerts do not count) > pending (no sample yet) > healthy.
 */
export function deriveDatabaseStatus(input: {
  monitoringEnabled: boolean;
  reachability: Reachability;
  activeSeverities: readonly AlertSeverity[];
}): DatabaseStatus {
  if (!input.monitoringEnabled) return 'paused';
  if (input.reachability === 'unreachable') return 'unreachable';
  if (input.activeSeverities.includes('critical')) return 'critical';
  if (input.activeSeverities.includes('warning')) return 'warning';
  return input.reachability === 'pending' ? 'pending' : 'healthy';
}
