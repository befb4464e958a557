import { parseDuration } from '../../../common/duration.js';
import type { SlowQuerySort } from './database-sections-source.js';
import { slowQueryRanges, type SlowQueryRange } from './slow-queries-section.js';

const sorts: readonly SlowQuerySort[] = ['total_time', 'mean_time', 'calls', 'max_time'];

/** A range of the picker from a page's query string; anything else is the default, 24 h. */
export function pickedRange(text: unknown): { text: SlowQueryRange; ms: number } {
  const picked = slowQueryRanges.find((range) => range === text) ?? '24h';
  return { text: picked, ms: parseDuration(picked)! };
}

export const pickedSort = (text: unknown): SlowQuerySort => sorts.find((sort) => sort === text) ?? 'total_time';
