import type { ExporterFamily } from '../../common/exporter-catalog.js';
import type { MetricEngine } from '../../common/metric-catalog.js';

/** One reported series that passed the checks: its family and its labels as written (escaped). */
export interface ExporterSeries {
  family: ExporterFamily;
  labels: string;
  value: number;
}

const seriesPattern = /^([a-z_][a-z0-9_]*)(?:\{(.*)\})?$/s;
/** One `name="value"` pair, then a comma and another pair, or the end. */
const labelPattern = /([a-z_][a-z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(?:,(?=[a-z_])|$)/y;

/**
 * Reads the series an agent reported in a snapshot's `counters`, keyed as `seriesKey` writes
 * them. A series is kept only when its family is in the catalog for the database's engine and
 * its labels are exactly the family's, in order, with text-format escaping: an agent can neither
 * add a family (`pg_up` is the server's reading), nor a label, nor a line.
 */
export function exporterSeries(families: ReadonlyMap<string, ExporterFamily>, engine: MetricEngine, counters: Record<string, unknown>): ExporterSeries[] {
  const kept: ExporterSeries[] = [];
  for (const [key, value] of Object.entries(counters)) {
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    const [, name, labelText = ''] = seriesPattern.exec(key) ?? [];
    const family = name === undefined ? undefined : families.get(name);
    if (family === undefined || !family.engines.includes(engine) || !hasLabels(labelText, family.labels)) continue;
    kept.push({ family, labels: labelText, value });
  }
  return kept;
}

function hasLabels(text: string, expected: readonly string[]): boolean {
  const pattern = new RegExp(labelPattern);
  const names: string[] = [];
  while (pattern.lastIndex < text.length) {
    const match = pattern.exec(text);
    if (match === null) return false;
    names.push(match[1]!);
  }
  return names.length === expected.length && names.every((name, i) => name === expected[i]);
}

/**
 * The TYPE a family is written with: the exporter's, unless its name breaks the text format's
 * conventions (a counter without `_total`, a gauge ending in `_count`): then `untyped`, which
 * Prometheus reads the same way and `promtool check metrics` accepts.
 */
export function exposedType(family: ExporterFamily): 'gauge' | 'counter' | 'untyped' {
  if (family.type === 'counter') return family.name.endsWith('_total') ? 'counter' : 'untyped';
  return /_(count|sum|bucket)$/.test(family.name) ? 'untyped' : 'gauge';
}
