import { parseDuration } from '../../common/duration.js';
import { historyResolutions, type HistoryResolution } from '../../common/metric-catalog.js';

/** How long history keeps each resolution, in milliseconds. */
export type RetentionMs = Record<HistoryResolution, number>;

/** One value per history resolution. */
export function byHistoryResolution<V>(valueAt: (resolution: HistoryResolution) => V): Record<HistoryResolution, V> {
  return Object.fromEntries(historyResolutions.map((resolution) => [resolution, valueAt(resolution)])) as Record<HistoryResolution, V>;
}

/** Retention unless configured (config `retention.*`), as durations. */
export const defaultRetentionDurations: Readonly<Record<HistoryResolution, string>> = {
  raw: '7d',
  '1m': '30d',
  '5m': '90d',
  '1h': '400d',
  '1d': '1825d',
};

export const defaultRetention: RetentionMs = byHistoryResolution((resolution) => parseDuration(defaultRetentionDurations[resolution])!);
