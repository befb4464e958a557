import { z } from 'zod';
import { parseDuration } from '../../common/duration.js';
import { historyResolutions, type MetricCatalog } from '../../common/metric-catalog.js';
import { apiSnapshotMetrics } from './catalog-schemas.js';

export const resolutions = [...historyResolutions, 'auto'] as const;
export type Resolution = (typeof resolutions)[number];

const minRangeMs = 60_000;
const maxRangeMs = 30 * 86_400_000;

const range = z
  .string()
  .transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === undefined || ms < minRangeMs || ms > maxRangeMs) {
      ctx.addIssue({ code: 'custom', message: 'must be <n>(s|m|h|d) between 1m and 30d' });
      return z.NEVER;
    }
    return { text, ms };
  })
  .describe('Duration <n>(s|m|h|d), 1m..30d');

export type Range = { text: string; ms: number };

/** The `range` query parameter (1m..30d), for the other features' endpoints; each sets its own default. */
export const rangeParam = range;

export const currentMetricsQuery = z.strictObject({ range: range.prefault('5m').describe('Duration <n>(s|m|h|d), 1m..30d; default 5m') });

/** `GET .../metrics/history`'s query: `metrics` takes the paths of the metrics history keeps. */
export function historyQuery(catalog: MetricCatalog) {
  const metricPaths = catalog.filter((metric) => metric.history.length > 0).map((metric) => metric.path);
  return z.strictObject({
    metrics: z
      .string()
      .transform((text, ctx) => {
        const names = text.split(',').map((name) => name.trim()).filter(Boolean);
        const unknown = names.find((name) => !metricPaths.includes(name));
        if (names.length === 0 || unknown !== undefined) {
          ctx.addIssue({ code: 'custom', message: `unknown metric ${unknown ?? '(none)'}; known: ${metricPaths.join(', ')}` });
          return z.NEVER;
        }
        return [...new Set(names)];
      })
      .optional()
      .describe(`Comma-separated metric paths (default: all): ${metricPaths.join(', ')}`),
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    range: range.optional().describe('Span ending at `to` when `from` is absent (default 1h)'),
    resolution: z.enum(resolutions).default('auto'),
  });
}

export type HistoryQuery = z.output<ReturnType<typeof historyQuery>>;

const nullableNumber = z.number().nullable();

/** `GET .../metrics`'s answer: the catalog's metrics shown in the API snapshot, at their paths. */
export function metricsSnapshot(catalog: MetricCatalog) {
  return z
    .object({
      database_id: z.string(),
      timestamp: z.string().nullable(),
      range: z.string(),
      status: z.string(),
      metrics: apiSnapshotMetrics(catalog),
    })
    .meta({ id: 'MetricsSnapshot' });
}

const rolledValue = z.object({ avg: nullableNumber, min: nullableNumber, max: nullableNumber });

export const metricsHistory = z
  .object({
    database_id: z.string(),
    from: z.string(),
    to: z.string(),
    resolution: z.enum(historyResolutions),
    data: z.array(
      z.object({
        timestamp: z.string(),
        metrics: z.record(z.string(), z.union([nullableNumber, rolledValue])).describe('raw: numbers; rollups: {avg, min, max}'),
      }),
    ),
  })
  .meta({ id: 'MetricsHistory' });
