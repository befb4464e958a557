import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { metricCatalog, nestValues, type MetricCatalog, type MetricValues, type SnapshotMetricFields } from '../../common/metric-catalog.js';
import type { CollectionErrorCode } from '../../common/agent-protocol/error-codes.js';
import { maxCounterKeyLength, maxErrorLength } from '../../common/agent-protocol/limits.js';
import type { CollectorOutcome, Snapshot } from '../../common/agent-protocol/snapshot.js';
import { collectionErrorCode } from './collection-error-code.js';
import type { Collector, Contribution, Pingable } from './collector.js';
import { intervalMetrics, type IntervalMetrics, type TimedReadings } from './interval-metrics.js';

export interface CollectionRunnerOptions<Source extends Pingable> {
  source: Source;
  collectors: readonly Collector<Source>[];
  logger: Logger;
  /** The metrics a snapshot carries; the real catalog unless a test passes a fixture. */
  catalog?: MetricCatalog;
  /** Monotonic milliseconds: collectors' durations and when the counters were read. */
  nowMs?: () => number;
}

/**
 * Collects one database: runs its collectors one after another (they share one connection, so
 * each one's duration is its own), records how each fared, and turns the readings of
 * consecutive cycles into rates. Those that read rates' counters run first, right after the
 * ping, and the sample is stamped with when the first of them read its own (the cycle's start
 * plus the agent's monotonic time to the middle of that read): a rate's interval is then the
 * time between its counters' reads, whatever a reconnect or the event loop delayed. One runner
 * per database; it owns that database's previous readings. A failing collector costs only its
 * own part of the snapshot.
 */
export class CollectionRunner<Source extends Pingable> {
  #previous: TimedReadings | undefined;
  /** Last error logged, so that a lasting failure is logged once rather than every cycle. */
  #databaseError: string | undefined;
  readonly #collectorErrors = new Map<string, string>();

  readonly #catalog: MetricCatalog;
  readonly #nowMs: () => number;
  /** The collectors in the order they run, each with its logger, made once rather than every cycle. */
  readonly #collectors: readonly { collector: Collector<Source>; logger: Logger }[];

  constructor(private readonly options: CollectionRunnerOptions<Source>) {
    this.#catalog = options.catalog ?? metricCatalog;
    this.#nowMs = options.nowMs ?? (() => performance.now());
    const countersFirst = [
      ...options.collectors.filter((collector) => collector.readsRateCounters),
      ...options.collectors.filter((collector) => !collector.readsRateCounters),
    ];
    this.#collectors = countersFirst.map((collector) => ({ collector, logger: options.logger.child({ collector: collector.name }) }));
  }

  /**
   * One cycle that starts `now`. `signal` is the cycle's deadline (the scheduler's): once it aborts, the
   * statement running is cancelled and the collectors not yet run are recorded as failed with its reason.
   */
  async collect(now: Date = new Date(), signal: AbortSignal = new AbortController().signal): Promise<Snapshot> {
    const startedMs = this.#nowMs();
    const { source } = this.options;
    const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error)).slice(0, maxErrorLength);
    try {
      // A connection that broke since the last cycle fails the first ping and is dropped;
      // the second ping opens a fresh one.
      await source.ping(signal).catch(() => source.ping(signal));
      this.#reachable();
    } catch (error) {
      const message = describe(error);
      this.#unreachable(message);
      return unreachableSnapshot(this.#catalog, now, message, signal.aborted && error === signal.reason ? 'timeout' : collectionErrorCode(error));
    }
    const outcomes: CollectorOutcome[] = [];
    const contributions: Contribution[] = [];
    let statisticsFailure: string | undefined;
    let countersReadMs: number | undefined;
    for (const { collector, logger } of this.#collectors) {
      const started = this.#nowMs();
      const ctx = { signal, now, logger };
      try {
        signal.throwIfAborted();
        contributions.push(await collector.collect(source, ctx));
        const ended = this.#nowMs();
        outcomes.push({ name: collector.name, duration_ms: ended - started, success: true });
        if (collector.readsRateCounters) countersReadMs ??= (started + ended) / 2;
        this.#collectorSucceeded(collector.name);
      } catch (error) {
        const message = describe(error);
        outcomes.push({ name: collector.name, duration_ms: this.#nowMs() - started, success: false, error: message });
        this.#collectorFailed(collector.name, message);
        if (collector.explainsMissingLatency) statisticsFailure ??= message;
      }
    }
    const merged = mergeContributions(contributions);
    const sampledAtMs = now.getTime() + (countersReadMs === undefined ? 0 : Math.round(countersReadMs - startedMs));
    const current: TimedReadings = { atMs: sampledAtMs, readings: merged.readings ?? {} };
    const derived = intervalMetrics(this.#previous, current, statisticsFailure ?? merged.latencyNote);
    this.#previous = current;
    const fields = metricFields(this.#catalog, { ...merged.values, ...derivedValues(derived) });
    const { source: latencySource, note } = derived.latency;
    return {
      timestamp: new Date(sampledAtMs).toISOString(),
      reachable: true,
      version: merged.version ?? null,
      ...fields,
      metrics: { ...fields.metrics, latency: { ...fields.metrics.latency, source: latencySource, ...(note !== undefined && { note }) } },
      counters: withinKeyLimit(merged.counters ?? {}),
      collectors: outcomes,
      ...(derived.statements && { statements: derived.statements }),
    };
  }

  #unreachable(message: string): void {
    if (this.#databaseError !== message) this.options.logger.warn({ error: message }, 'database unreachable');
    this.#databaseError = message;
  }

  #reachable(): void {
    if (this.#databaseError !== undefined) this.options.logger.info('database reachable again');
    this.#databaseError = undefined;
  }

  #collectorFailed(name: string, message: string): void {
    if (this.#collectorErrors.get(name) !== message) {
      this.options.logger.warn({ collector: name, error: message }, 'collector failed');
    }
    this.#collectorErrors.set(name, message);
  }

  #collectorSucceeded(name: string): void {
    if (this.#collectorErrors.delete(name)) this.options.logger.info({ collector: name }, 'collector recovered');
  }
}

/** The series the server takes: one labelled with long names (a table's, a user's) would cost the whole sample. */
function withinKeyLimit(counters: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counters).filter(([key]) => key.length <= maxCounterKeyLength));
}

/** One pass: the counters of a cycle run to hundreds, so copying them at every step would not do. */
function mergeContributions(contributions: readonly Contribution[]): Contribution {
  const merged = { values: {}, counters: {}, readings: {} } satisfies Contribution;
  for (const { values, counters, readings, ...rest } of contributions) {
    Object.assign(merged, rest);
    Object.assign(merged.values, values);
    Object.assign(merged.counters, counters);
    Object.assign(merged.readings, readings);
  }
  return merged;
}

/** The metrics the runner computes from consecutive readings, keyed by catalog path. */
function derivedValues(derived: IntervalMetrics): MetricValues {
  return {
    ...derived.counterRates,
    cpu_usage: derived.cpuUsage,
    'throughput.queries_per_second': derived.throughput.queries_per_second,
    'throughput.transactions_per_second': derived.throughput.transactions_per_second,
    'latency.avg_query_time_ms': derived.latency.avg_query_time_ms,
    'latency.p95_query_time_ms': derived.latency.p95_query_time_ms,
    'latency.p99_query_time_ms': derived.latency.p99_query_time_ms,
  };
}

/** Every catalog metric at its place in the snapshot; null when no collector gave it. */
function metricFields(catalog: MetricCatalog, values: Readonly<Record<string, number | null | undefined>>): SnapshotMetricFields {
  return nestValues(catalog.map((metric) => [metric.snapshot, values[metric.path] ?? null])) as SnapshotMetricFields;
}

function unreachableSnapshot(catalog: MetricCatalog, now: Date, error: string, errorCode: CollectionErrorCode): Snapshot {
  const fields = metricFields(catalog, {});
  return {
    timestamp: now.toISOString(),
    reachable: false,
    error,
    error_code: errorCode,
    version: null,
    ...fields,
    metrics: { ...fields.metrics, latency: { ...fields.metrics.latency, source: null } },
    counters: {},
    collectors: [],
  };
}
