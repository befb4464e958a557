import { metricByPath, nestValues, rollupResolutions, type HistoryResolution, type MetricCatalog, type MetricDefinition, type RollupResolution } from '../../common/metric-catalog.js';
import { InvalidRequestError } from '../errors.js';
import type { DatabaseRow } from '../databases/database-row.js';
import type { History } from './history-presenter.js';
import type { HistoryQuery, Range } from './metrics-schema.js';
import type { RetentionMs } from './retention.js';
import type { SampleStore } from './sample-store.js';

const autoMaxPoints = 500;
const maxPoints = 10_000;
const defaultHistorySpanMs = 3_600_000;

export class MetricsService {
  /** The API snapshot's metrics: gauges and counters from the latest sample, rates and latencies over the range. */
  readonly #apiMetrics: { metric: MetricDefinition; fromRange: boolean }[];

  constructor(
    private readonly samples: SampleStore,
    private readonly retention: RetentionMs,
    private readonly catalog: MetricCatalog,
  ) {
    this.#apiMetrics = catalog
      .filter((metric) => metric.api)
      .map((metric) => ({ metric, fromRange: metric.kind === 'rate' || metric.kind === 'latency' }));
  }

  /** Gauges from the latest sample; rates and latencies over the range ending now. */
  current(database: DatabaseRow, range: Range, now: Date) {
    const latest = this.samples.latest(database.id) as Record<string, number | null> | undefined;
    const rates = this.samples.rangeRates(database.id, now.getTime() - range.ms, now.getTime());
    const metrics: { latency?: object } = nestValues(
      this.#apiMetrics.map(({ metric, fromRange }) => [metric.path, (fromRange ? rates[metric.column] : latest?.[metric.column]) ?? null]),
    );
    return {
      database_id: database.id,
      timestamp: latest === undefined ? null : new Date(latest.ts!).toISOString(),
      range: range.text,
      status: database.status,
      metrics: { ...metrics, latency: { ...metrics.latency, source: rates.latency_source } },
    };
  }

  /** The rows of the span at the resolution asked (or picked), for history-presenter.ts to present. */
  history(database: DatabaseRow, query: HistoryQuery, now: Date): History {
    const toMs = query.to === undefined ? now.getTime() : Date.parse(query.to);
    const fromMs = query.from === undefined ? toMs - (query.range?.ms ?? defaultHistorySpanMs) : Date.parse(query.from);
    if (query.from !== undefined && query.range !== undefined) {
      throw new InvalidRequestError('invalid_parameter', 'Give either from or range, not both', 'range');
    }
    if (fromMs >= toMs) throw new InvalidRequestError('invalid_parameter', 'from must be before to', 'from');
    const metrics = query.metrics?.map((path) => metricByPath(this.catalog, path)!) ?? this.catalog.filter((metric) => metric.history.length > 0);
    const resolution = this.pickResolution(query.resolution, toMs - fromMs, fromMs, database.interval_seconds * 1000, now.getTime());
    // Only the columns asked for; one row past the bound tells that there are too many, without reading them all.
    const kept = metrics.filter((metric) => metric.history.includes(resolution));
    const rows =
      resolution === 'raw'
        ? this.samples.rawSeries(database.id, kept, fromMs, toMs, maxPoints + 1)
        : this.rolledRows(database.id, resolution, kept, fromMs, toMs, maxPoints + 1);
    if (rows.length > maxPoints) {
      throw new InvalidRequestError('invalid_parameter', `More than ${maxPoints} points; choose a coarser resolution or a shorter span`, 'resolution');
    }
    return {
      database_id: database.id,
      from: new Date(fromMs).toISOString(),
      to: new Date(toMs).toISOString(),
      resolution,
      metrics,
      rows,
    };
  }

  private rolledRows(databaseId: string, resolution: RollupResolution, metrics: MetricDefinition[], fromMs: number, toMs: number, limit: number) {
    const width = rollupResolutions.find((candidate) => candidate.name === resolution)!.ms;
    const bucketFrom = Math.floor(fromMs / width) * width;
    return this.samples.rollupSeries(databaseId, resolution, metrics, bucketFrom, toMs, limit);
  }

  /** `auto` takes the finest resolution that gives at most ~500 points and still holds data that old. */
  private pickResolution(asked: HistoryQuery['resolution'], spanMs: number, fromMs: number, sampleMs: number, nowMs: number): HistoryResolution {
    const candidates: { name: HistoryResolution; ms: number }[] = [{ name: 'raw', ms: sampleMs }, ...rollupResolutions];
    if (asked !== 'auto') return asked;
    const fitting = candidates.find(
      (candidate) => spanMs / candidate.ms <= autoMaxPoints && fromMs >= nowMs - this.retention[candidate.name],
    );
    return (fitting ?? candidates.at(-1)!).name;
  }
}
