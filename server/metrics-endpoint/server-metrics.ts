import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AgentRow } from '../agents/agents-repository.js';
import type { DatabaseRow } from '../databases/databases-repository.js';
import type { IngestResult } from '../metrics/ingest-service.js';
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

  constructor(private readonly sources: ScrapeSources) {
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
    registerDatabaseGauges(this.registry, sources);
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.#requests.inc({ method, route, status: String(status) });
    this.#duration.observe({ route }, seconds);
  }

  recordIngest(result: IngestResult): void {
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

function registerDatabaseGauges(registry: Registry, sources: ScrapeSources): void {
  const views = () => databaseViews(sources);
  const gauge = (name: string, help: string, value: (view: DatabaseView) => number | null | undefined, extraLabels: string[] = []) =>
    new Gauge({
      name,
      help,
      labelNames: [...databaseLabels, ...extraLabels],
      registers: [registry],
      collect() {
        this.reset();
        for (const view of views()) {
          const current = value(view);
          if (current !== null && current !== undefined) this.set(view.labels, current);
        }
      },
    });
  const isPostgres = (view: DatabaseView) => view.database.type === 'postgresql';
  const up = (view: DatabaseView) => (view.latest === undefined ? null : view.latest.reachable);

  gauge('pg_up', 'Whether the last collection reached the PostgreSQL server (1) or not (0).', (view) => (isPostgres(view) ? up(view) : null));
  gauge('mysql_up', 'Whether the last collection reached the MySQL/MariaDB server (1) or not (0).', (view) => (isPostgres(view) ? null : up(view)));
  gauge('pg_settings_max_connections', 'PostgreSQL max_connections.', (view) => (isPostgres(view) ? view.sample?.connections_max : null));
  gauge('mysql_global_variables_max_connections', 'MySQL/MariaDB max_connections.', (view) => (isPostgres(view) ? null : view.sample?.connections_max));
  gauge('pg_database_size_bytes', 'Size of the monitored PostgreSQL database.', (view) => (isPostgres(view) ? view.sample?.database_size_bytes : null));
  gauge('dbmon_database_up', 'Whether the last collection reached the database (1) or not (0).', up);
  gauge('dbmon_database_cpu_usage_ratio', 'CPU in use on the host of the collecting agent, 0..1.', (view) => ratio(view.sample?.cpu_usage));
  gauge('dbmon_database_memory_usage_ratio', 'Memory in use on the host of the collecting agent, 0..1.', (view) => ratio(view.sample?.memory_usage));
  gauge('dbmon_database_disk_usage_ratio', 'Disk in use on the file system of the database, 0..1.', (view) => ratio(view.sample?.disk_usage));
  gauge('dbmon_database_size_bytes', 'Size of the monitored database.', (view) => view.sample?.database_size_bytes);
  gauge('dbmon_database_queries_per_second', 'Queries per second over the last interval.', (view) => view.sample?.queries_per_second);
  gauge('dbmon_database_transactions_per_second', 'Transactions per second over the last interval.', (view) => view.sample?.transactions_per_second);

  new Gauge({
    name: 'dbmon_database_connections',
    help: 'Client connections by state (active, idle, total, max).',
    labelNames: [...databaseLabels, 'state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const view of views()) {
        const sample = view.sample;
        if (sample === undefined) continue;
        for (const [state, value] of Object.entries({
          active: sample.connections_active,
          idle: sample.connections_idle,
          total: sample.connections_total,
          max: sample.connections_max,
        })) {
          if (value !== null) this.set({ ...view.labels, state }, value);
        }
      }
    },
  });
  new Gauge({
    name: 'dbmon_database_query_latency_seconds',
    help: 'Query latency over the last interval: mean and 95th/99th percentiles (estimate or histogram).',
    labelNames: [...databaseLabels, 'stat', 'source'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { labels, sample } of views()) {
        if (sample === undefined) continue;
        const source = sample.latency_source ?? 'none';
        for (const [stat, ms] of Object.entries({ mean: sample.avg_query_time_ms, p95: sample.p95_query_time_ms, p99: sample.p99_query_time_ms })) {
          if (ms !== null) this.set({ ...labels, stat, source }, ms / 1000);
        }
      }
    },
  });
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

function ratio(percent: number | null | undefined): number | null {
  return percent === null || percent === undefined ? null : percent / 100;
}
