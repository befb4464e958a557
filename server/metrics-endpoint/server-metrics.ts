import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { BatchAck } from '../../common/agent-protocol/sample-batch.js';
import type { JobObserver } from '../jobs/job-scheduler.js';
import type { DeliveryObserver } from '../webhooks/webhook-dispatcher.js';
import type { DeliveryStatus } from '../webhooks/webhooks-schema.js';
import type { MetricCatalog, PrometheusSeries } from '../../common/metric-catalog.js';
import { escapeLabelValue, exporterCatalog, type ExporterFamily } from '../../common/exporter-catalog.js';
import type { AgentRow } from '../agents/agent-row.js';
import type { DatabaseRow } from '../databases/database-row.js';
import type { SpoolReport } from '../metrics/ingest-service.js';
import type { LatestSnapshotRow, SampleRow } from '../metrics/sample-row.js';
import { exporterSeries, exposedType, type ExporterSeries } from './exporter-series.js';
import { HealthGauges, type HealthSources } from './health-gauges.js';
import { HttpRequestMetrics } from './http-request-metrics.js';

export interface ScrapeSources extends HealthSources {
  databases: () => DatabaseRow[];
  latestSample: (databaseId: string) => SampleRow | undefined;
  /** The newest sample of every database that has one: what a scrape of the whole fleet reads. */
  latestSamples: () => SampleRow[];
  /** When a collection last reached the database (ms); read only for a database whose newest sample did not. */
  lastReachedAt: (databaseId: string) => number | undefined;
  latestSnapshots: () => LatestSnapshotRow[];
  agents: () => AgentRow[];
}

/** What the spool gauges read of an agent: a remote agent's row, or what the embedded agent last stated. */
type AgentSpool = Pick<AgentRow, 'spool_dropped_total' | 'spool_batches' | 'spool_oldest_batch_at'>;

/** The embedded agent's labels: agent ids are `agent_` and a random part, so no remote agent has its id. */
const embeddedAgentLabels = { agent_id: 'embedded', agent_name: 'embedded' };

/** The result label of a webhook attempt, by the delivery's status after it. */
const attemptResults: Record<DeliveryStatus, string> = { succeeded: 'succeeded', pending: 'retrying', failed: 'failed' };

/** The server's own Prometheus registry (never prom-client's global one); database gauges are computed at scrape time. */
export class ServerMetrics implements JobObserver, DeliveryObserver {
  readonly registry = new Registry();
  readonly #httpRequests = new HttpRequestMetrics();
  readonly #batches;
  readonly #samples;
  readonly #jobSlices;
  readonly #jobPasses;
  readonly #jobPassDuration;
  readonly #jobBehindSince = new Map<string, number | null>();
  #embeddedSpool: AgentSpool | undefined;
  readonly #webhookAttempts;
  readonly #health;
  readonly #families: DatabaseFamily[];
  readonly #exporterFamilies: ReadonlyMap<string, ExporterFamily>;

  constructor(
    private readonly sources: ScrapeSources,
    catalog: MetricCatalog,
  ) {
    const registers = [this.registry];
    this.#batches = new Counter({
      name: 'dbmon_ingest_batches_total',
      help: 'Sample batches received from agents, by result (stored or duplicate).',
      labelNames: ['result'],
      registers,
    });
    this.#samples = new Counter({
      name: 'dbmon_ingest_samples_total',
      help: 'Samples received from agents, by outcome (stored or rejected).',
      labelNames: ['outcome'],
      registers,
    });
    const agentGauge = <Agent>(
      name: string,
      help: string,
      agents: () => { labels: typeof embeddedAgentLabels; agent: Agent }[],
      value: (agent: Agent, nowMs: number) => number | undefined,
    ) =>
      new Gauge({
        name,
        help,
        labelNames: ['agent_id', 'agent_name'],
        registers,
        collect() {
          this.reset();
          const nowMs = sources.now().getTime();
          for (const { labels, agent } of agents()) {
            const measured = value(agent, nowMs);
            if (measured !== undefined) this.set(labels, measured);
          }
        },
      });
    const remoteAgents = () => sources.agents().map((agent) => ({ labels: { agent_id: agent.id, agent_name: agent.name }, agent }));
    const spoolingAgents = () => {
      const embedded = this.#embeddedSpool;
      return embedded === undefined ? remoteAgents() : [...remoteAgents(), { labels: embeddedAgentLabels, agent: embedded }];
    };
    agentGauge('dbmon_agent_last_seen_age_seconds', 'Seconds since each remote agent last called the server.', remoteAgents, (agent, nowMs) => (nowMs - Date.parse(agent.last_seen_at)) / 1000);
    agentGauge(
      'dbmon_agent_spool_dropped_samples',
      'Samples each agent dropped at its spool cap since it was installed, as the agent reports.',
      spoolingAgents,
      (agent) => agent.spool_dropped_total,
    );
    agentGauge(
      'dbmon_agent_spool_batches',
      "Batches waiting in each agent's spool behind the last one it sent, as the agent reports (agents that report it; agent_id=\"embedded\" is the server's own).",
      spoolingAgents,
      (agent) => agent.spool_batches ?? undefined,
    );
    agentGauge(
      'dbmon_agent_spool_oldest_batch_age_seconds',
      "Age of the oldest batch waiting in each agent's spool, from what it last reported; 0 when none waits.",
      spoolingAgents,
      ({ spool_batches, spool_oldest_batch_at }, nowMs) =>
        spool_batches === null ? undefined : spool_oldest_batch_at === null ? 0 : Math.max(0, nowMs - Date.parse(spool_oldest_batch_at)) / 1000,
    );
    this.#jobSlices = new Histogram({
      name: 'dbmon_job_slice_duration_seconds',
      help: 'Time each slice of a background job held the event loop, by job.',
      labelNames: ['job'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
      registers,
    });
    this.#jobPasses = new Counter({
      name: 'dbmon_job_passes_total',
      help: 'Background job passes ended, by job and result (ok or failed).',
      labelNames: ['job', 'result'],
      registers,
    });
    this.#jobPassDuration = new Gauge({
      name: 'dbmon_job_last_pass_duration_seconds',
      help: 'Wall time of the last pass of each background job, from its first slice to its last.',
      labelNames: ['job'],
      registers,
    });
    const behindSince = this.#jobBehindSince;
    new Gauge({
      name: 'dbmon_job_lag_seconds',
      help: 'How long a pass of each background job has been due without finishing; 0 when none is.',
      labelNames: ['job'],
      registers,
      collect() {
        const nowMs = sources.now().getTime();
        for (const [job, since] of behindSince) this.set({ job }, since === null ? 0 : Math.max(0, nowMs - since) / 1000);
      },
    });
    this.#webhookAttempts = new Counter({
      name: 'dbmon_webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts, by result: succeeded, retrying (failed, to be tried again) or failed (failed, given up).',
      labelNames: ['result'],
      registers,
    });
    // Present from the start, so that rate() sees the first failure.
    for (const result of Object.values(attemptResults)) this.#webhookAttempts.inc({ result }, 0);
    this.#health = new HealthGauges(this.registry, sources);
    this.#families = [...reachabilityFamilies, ...freshnessFamilies, ...prometheusFamilies(catalog).map(catalogFamily)];
    this.#exporterFamilies = new Map(exporterCatalog.map((family) => [family.name, family]));
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.#httpRequests.observe(method, route, status, seconds);
  }

  /** The embedded agent's spool, as it states with each batch it tries to deliver. */
  embeddedSpoolReported(report: SpoolReport): void {
    this.#embeddedSpool = { spool_dropped_total: report.dropped_total ?? 0, spool_batches: report.batches, spool_oldest_batch_at: report.oldest_batch_at };
  }

  recordIngest(result: BatchAck): void {
    this.#batches.inc({ result: result.duplicate ? 'duplicate' : 'stored' });
    this.#samples.inc({ outcome: 'stored' }, result.stored);
    this.#samples.inc({ outcome: 'rejected' }, result.rejected);
  }

  jobSliceRan(job: string, seconds: number): void {
    this.#jobSlices.observe({ job }, seconds);
  }

  jobPassEnded(job: string, seconds: number, failed: boolean): void {
    this.#jobPasses.inc({ job, result: failed ? 'failed' : 'ok' });
    this.#jobPassDuration.set({ job }, seconds);
  }

  jobBehindSince(job: string, sinceMs: number | null): void {
    this.#jobBehindSince.set(job, sinceMs);
  }

  webhookAttempted(status: DeliveryStatus): void {
    this.#webhookAttempts.inc({ result: attemptResults[status] });
  }

  /** The server's own metrics, then every database's: one view of the databases per scrape, written in one pass. */
  async metrics(): Promise<string> {
    this.#health.refresh();
    const samples = new Map(this.sources.latestSamples().map((sample) => [sample.database_id, sample]));
    const views = databaseViews(this.sources, this.#exporterFamilies, this.sources.databases(), (id) => samples.get(id));
    return this.#httpRequests.text() + (await this.registry.metrics()) + databaseFamiliesText(this.#families, views, databaseLabels) + exporterFamiliesText(views, databaseLabels);
  }

  /** The monitored databases, as the scrape targets list them. */
  databases(): DatabaseRow[] {
    return this.sources.databases();
  }

  /**
   * One database as its own scrape target, the exporters' way: its series with only their own
   * labels, so that Prometheus's `instance` and `job` tell databases apart. Undefined when there is no such database.
   */
  databaseMetrics(id: string): string | undefined {
    const database = this.sources.databases().find((row) => row.id === id);
    if (database === undefined) return undefined;
    const views = databaseViews(this.sources, this.#exporterFamilies, [database], this.sources.latestSample);
    return databaseFamiliesText(this.#families, views, () => []) + exporterFamiliesText(views, () => []);
  }
}

interface DatabaseView {
  database: DatabaseRow;
  sample: SampleRow | undefined;
  latest: LatestSnapshotRow | undefined;
  exporter: ExporterSeries[];
  /** When a collection last reached the database (ms), if one did within retention. */
  lastReachedMs: number | undefined;
  /** The scrape's clock. */
  nowMs: number;
  /** 1 when the last collection failed or one of its collectors did, as the exporters' last_scrape_error. */
  scrapeError: number | undefined;
}

/** Labels written before a series' own: the database's on the fleet endpoint, none on a database's own. */
type LeadingLabels = (view: DatabaseView) => string[];

const databaseLabels: LeadingLabels = ({ database }) => [`database_id="${escapeLabelValue(database.id)}"`, `database_name="${escapeLabelValue(database.name)}"`];

function databaseViews(
  sources: ScrapeSources,
  families: ReadonlyMap<string, ExporterFamily>,
  databases: readonly DatabaseRow[],
  latestSample: (databaseId: string) => SampleRow | undefined,
): DatabaseView[] {
  const latest = new Map(sources.latestSnapshots().map((row) => [row.database_id, row]));
  const nowMs = sources.now().getTime();
  return databases.map((database) => {
    const snapshot = latest.get(database.id);
    const sample = latestSample(database.id);
    return {
      database,
      sample,
      lastReachedMs: sample?.reachable === 1 ? sample.ts : sample && sources.lastReachedAt(database.id),
      nowMs,
      latest: snapshot,
      exporter: snapshot === undefined ? [] : exporterSeries(families, database.type, JSON.parse(snapshot.counters) as Record<string, unknown>),
      scrapeError: snapshot === undefined ? undefined : Number(snapshot.reachable === 0 || (JSON.parse(snapshot.collectors) as { success: boolean }[]).some(({ success }) => !success)),
    };
  });
}

/** A gauge family of every database: its series of one database as its own label pairs, written and joined, and a value. */
interface DatabaseFamily {
  name: string;
  help: string;
  series: (view: DatabaseView) => { labels: string; value: number }[];
}

const isPostgres = (view: DatabaseView) => view.database.type === 'postgresql';
const up = (view: DatabaseView) => (view.latest === undefined ? [] : [{ labels: '', value: view.latest.reachable }]);

const scrapeError = (view: DatabaseView) => (view.scrapeError === undefined ? [] : [{ labels: '', value: view.scrapeError }]);

const reachabilityFamilies: DatabaseFamily[] = [
  { name: 'pg_up', help: 'Whether the last collection reached the PostgreSQL server (1) or not (0).', series: (view) => (isPostgres(view) ? up(view) : []) },
  { name: 'mysql_up', help: 'Whether the last collection reached the MySQL/MariaDB server (1) or not (0).', series: (view) => (isPostgres(view) ? [] : up(view)) },
  { name: 'dbmon_database_up', help: 'Whether the last collection reached the database (1) or not (0).', series: up },
  { name: 'pg_exporter_last_scrape_error', help: 'Whether the last collection, or one of its collectors, failed (1) or not (0).', series: (view) => (isPostgres(view) ? scrapeError(view) : []) },
  { name: 'mysql_exporter_last_scrape_error', help: 'Whether the last collection, or one of its collectors, failed (1) or not (0).', series: (view) => (isPostgres(view) ? [] : scrapeError(view)) },
];

const freshnessFamilies: DatabaseFamily[] = [
  {
    name: 'dbmon_database_ingest_lag_seconds',
    help: "Age of the newest sample stored for the database (reached or not): grows past the collection interval when the agent's data stops arriving.",
    series: ({ sample, nowMs }) => (sample === undefined ? [] : [{ labels: '', value: Math.max(0, nowMs - sample.ts) / 1000 }]),
  },
  {
    name: 'dbmon_database_last_success_timestamp_seconds',
    help: 'When a collection last reached the database, in Unix seconds (among the raw samples retention keeps).',
    series: ({ lastReachedMs }) => (lastReachedMs === undefined ? [] : [{ labels: '', value: lastReachedMs / 1000 }]),
  },
];

function catalogFamily(family: PrometheusFamily): DatabaseFamily {
  const members = family.members.map(({ column, series }) => ({
    column,
    series,
    labels: Object.entries(series.labels ?? {}).map(([name, value]) => `${name}="${escapeLabelValue(value)}"`),
  }));
  return {
    name: family.name,
    help: family.help,
    series: ({ database, sample }) => {
      if (sample === undefined) return [];
      const row = sample as Record<string, unknown>;
      const written: { labels: string; value: number }[] = [];
      for (const { column, series, labels } of members) {
        const value = row[column];
        if (typeof value !== 'number' || (series.engines !== undefined && !series.engines.includes(database.type))) continue;
        const source = series.latencySourceLabel ? [`source="${escapeLabelValue(sample.latency_source ?? 'none')}"`] : [];
        written.push({ labels: [...labels, ...source].join(','), value: value / (series.divideBy ?? 1) });
      }
      return written;
    },
  };
}

/** Every database family with series in the Prometheus text format, each with its HELP and TYPE lines. */
function databaseFamiliesText(families: readonly DatabaseFamily[], views: readonly DatabaseView[], leading: LeadingLabels): string {
  const leadingLabels = views.map((view) => leading(view).join(','));
  let text = '';
  for (const family of families) {
    let lines = '';
    views.forEach((view, i) => {
      for (const { labels, value } of family.series(view)) lines += seriesLine(family.name, leadingLabels[i]!, labels, value);
    });
    if (lines !== '') text += `# HELP ${family.name} ${escapeHelp(family.help)}\n# TYPE ${family.name} gauge\n${lines}`;
  }
  return text;
}

interface PrometheusFamily {
  name: string;
  help: string;
  members: { column: string; series: PrometheusSeries }[];
}

/** The catalog's Prometheus series grouped by name, in catalog order; a family's help is its first series'. */
function prometheusFamilies(catalog: MetricCatalog): PrometheusFamily[] {
  const families = new Map<string, PrometheusFamily>();
  for (const metric of catalog) {
    for (const series of metric.prometheus) {
      const family = families.get(series.name) ?? { name: series.name, help: series.help, members: [] };
      families.set(series.name, family);
      family.members.push({ column: metric.column, series });
    }
  }
  return [...families.values()];
}

/** The engine series the agents reported, one family per exporter name present, in name order. */
function exporterFamiliesText(views: readonly DatabaseView[], leading: LeadingLabels): string {
  const families = new Map<ExporterFamily, string>();
  for (const view of views) {
    const leadingLabels = view.exporter.length === 0 ? '' : leading(view).join(',');
    for (const { family, labels, value } of view.exporter) {
      families.set(family, (families.get(family) ?? '') + seriesLine(family.name, leadingLabels, labels, value));
    }
  }
  return [...families.entries()]
    .sort(([a], [b]) => a.name.localeCompare(b.name))
    .map(([family, lines]) => `# HELP ${family.name} ${escapeHelp(family.help)}\n# TYPE ${family.name} ${exposedType(family)}\n${lines}`)
    .join('');
}

/** One series' line, its newline included: the leading labels, then its own (each part a comma-joined list, possibly empty). */
function seriesLine(name: string, leading: string, own: string, value: number): string {
  const labels = leading === '' ? own : own === '' ? leading : `${leading},${own}`;
  return labels === '' ? `${name} ${value}\n` : `${name}{${labels}} ${value}\n`;
}

function escapeHelp(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}
