import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { BatchAck } from '../../common/agent-protocol/sample-batch.js';
import type { MetricCatalog, PrometheusSeries } from '../../common/metric-catalog.js';
import type { AgentRow } from '../agents/agent-row.js';
import type { DatabaseRow } from '../databases/database-row.js';
import type { LatestSnapshotRow, SampleRow } from '../metrics/samples-repository.js';

export interface ScrapeSources {
  databases: () => DatabaseRow[];
  latestSample: (databaseId: string) => SampleRow | undefined;
  latestSnapshots: () => LatestSnapshotRow[];
  agents: () => AgentRow[];
  now: () => Date;
}

const databaseLabels = ['database_id', 'database_name'] as const;
/** Engine counters re-exported under the names postgres_exporter and mysqld_exporter dashboards use. */
const exporterName = /^(pg|mysql)_[a-z0-9_]+$/;

/** The server's own Prometheus registry (never prom-client's global one); database gauges are computed at scrape time. */
export class ServerMetrics {
  readonly registry = new Registry();
  readonly #requests;
  readonly #duration;
  readonly #batches;
  readonly #samples;

  constructor(
    private readonly sources: ScrapeSources,
    catalog: MetricCatalog,
  ) {
    const registers = [this.registry];
    this.#requests = new Counter({
      name: 'dbmon_http_requests_total',
      help: 'HTTP requests served, by method, matched route and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.#duration = new Histogram({
      name: 'dbmon_http_request_duration_seconds',
      help: 'HTTP request duration by matched route.',
      labelNames: ['route'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers,
    });
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
    new Gauge({
      name: 'dbmon_agent_last_seen_age_seconds',
      help: 'Seconds since each remote agent last called the server.',
      labelNames: ['agent_id', 'agent_name'],
      registers,
      collect() {
        this.reset();
        const nowMs = sources.now().getTime();
        for (const agent of sources.agents()) {
          this.set({ agent_id: agent.id, agent_name: agent.name }, (nowMs - Date.parse(agent.last_seen_at)) / 1000);
        }
      },
    });
    new Gauge({
      name: 'dbmon_agent_spool_dropped_samples',
      help: 'Samples each agent dropped at its spool cap since it was installed, as the agent reports.',
      labelNames: ['agent_id', 'agent_name'],
      registers,
      collect() {
        this.reset();
        for (const agent of sources.agents()) this.set({ agent_id: agent.id, agent_name: agent.name }, agent.spool_dropped_total);
      },
    });
    registerDatabaseGauges(this.registry, sources, catalog);
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.#requests.inc({ method, route, status: String(status) });
    this.#duration.observe({ route }, seconds);
  }

  recordIngest(result: BatchAck): void {
    this.#batches.inc({ result: result.duplicate ? 'duplicate' : 'stored' });
    this.#samples.inc({ outcome: 'stored' }, result.stored);
    this.#samples.inc({ outcome: 'rejected' }, result.rejected);
  }

  async metrics(): Promise<string> {
    return (await this.registry.metrics()) + engineCountersText(databaseViews(this.sources));
  }
}

type Labels = Record<(typeof databaseLabels)[number], string>;

interface DatabaseView {
  labels: Labels;
  database: DatabaseRow;
  sample: SampleRow | undefined;
  latest: LatestSnapshotRow | undefined;
}

function databaseViews(sources: ScrapeSources): DatabaseView[] {
  const latest = new Map(sources.latestSnapshots().map((row) => [row.database_id, row]));
  return sources.databases().map((database) => ({
    labels: { database_id: database.id, database_name: database.name },
    database,
    sample: sources.latestSample(database.id),
    latest: latest.get(database.id),
  }));
}

function registerDatabaseGauges(registry: Registry, sources: ScrapeSources, catalog: MetricCatalog): void {
  const views = () => databaseViews(sources);
  const isPostgres = (view: DatabaseView) => view.database.type === 'postgresql';
  const up = (view: DatabaseView) => (view.latest === undefined ? null : view.latest.reachable);
  const reachability = [
    { name: 'pg_up', help: 'Whether the last collection reached the PostgreSQL server (1) or not (0).', value: (view: DatabaseView) => (isPostgres(view) ? up(view) : null) },
    { name: 'mysql_up', help: 'Whether the last collection reached the MySQL/MariaDB server (1) or not (0).', value: (view: DatabaseView) => (isPostgres(view) ? null : up(view)) },
    { name: 'dbmon_database_up', help: 'Whether the last collection reached the database (1) or not (0).', value: up },
  ];
  for (const { name, help, value } of reachability) {
    new Gauge({
      name,
      help,
      labelNames: databaseLabels,
      registers: [registry],
      collect() {
        this.reset();
        for (const view of views()) {
          const current = value(view);
          if (current !== null) this.set(view.labels, current);
        }
      },
    });
  }
  for (const family of prometheusFamilies(catalog)) {
    new Gauge({
      name: family.name,
      help: family.help,
      labelNames: [...databaseLabels, ...family.labelNames],
      registers: [registry],
      collect() {
        this.reset();
        for (const { labels, database, sample } of views()) {
          if (sample === undefined) continue;
          const row = sample as Record<string, unknown>;
          for (const { column, series } of family.members) {
            const value = row[column];
            if (typeof value !== 'number' || (series.engines !== undefined && !series.engines.includes(database.type))) continue;
            const source = series.latencySourceLabel ? { source: sample.latency_source ?? 'none' } : {};
            this.set({ ...labels, ...series.labels, ...source }, value / (series.divideBy ?? 1));
          }
        }
      },
    });
  }
}

interface PrometheusFamily {
  name: string;
  help: string;
  labelNames: string[];
  members: { column: string; series: PrometheusSeries }[];
}

/** The catalog's Prometheus series grouped by name, in catalog order; a family's help is its first series'. */
function prometheusFamilies(catalog: MetricCatalog): PrometheusFamily[] {
  const families = new Map<string, PrometheusFamily>();
  for (const metric of catalog) {
    for (const series of metric.prometheus) {
      const family = families.get(series.name) ?? { name: series.name, help: series.help, labelNames: [], members: [] };
      families.set(series.name, family);
      family.members.push({ column: metric.column, series });
      const labelNames = [...Object.keys(series.labels ?? {}), ...(series.latencySourceLabel ? ['source'] : [])];
      family.labelNames.push(...labelNames.filter((name) => !family.labelNames.includes(name)));
    }
  }
  return [...families.values()];
}

/**
 * Engine counters in the Prometheus text format, one family per exporter name. Written by hand
 * because the set of names is only known at scrape time (it depends on the engines monitored).
 */
export function engineCountersText(views: readonly DatabaseView[]): string {
  const families = new Map<string, string[]>();
  for (const view of views) {
    if (view.latest === undefined) continue;
    for (const [name, value] of Object.entries(JSON.parse(view.latest.counters) as Record<string, number>)) {
      if (!exporterName.test(name) || !Number.isFinite(value)) continue;
      const labels = `database_id="${escapeLabel(view.labels.database_id)}",database_name="${escapeLabel(view.labels.database_name)}"`;
      families.set(name, [...(families.get(name) ?? []), `${name}{${labels}} ${value}`]);
    }
  }
  return [...families.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, lines]) => `# HELP ${name} ${name} as reported by the engine.\n# TYPE ${name} untyped\n${lines.join('\n')}\n`)
    .join('');
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
