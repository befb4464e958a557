import { databaseTypes, type DatabaseType } from './agent-protocol/database-types.js';

/**
 * Every metric once. The agent's snapshot (type and server-side schema), the `samples` and
 * `sample_rollups` columns, the API snapshot, history's metric list and `/metrics` are all
 * derived from a catalog: adding a metric is one entry here, its collector query and a test.
 */

/**
 * How a metric combines: gauges and counters report the latest value; rates average over a range;
 * latencies are weighted by the rate they are measured over.
 */
export type MetricKind = 'gauge' | 'counter' | 'rate' | 'latency';
export type MetricUnit = 'percent' | 'count' | 'bytes' | 'per_second' | 'milliseconds';
export type MetricEngine = DatabaseType;

/** The rollups history keeps besides raw samples, finest first, with their bucket widths. */
export const rollupResolutions = [
  { name: '1m', ms: 60_000 },
  { name: '5m', ms: 300_000 },
  { name: '1h', ms: 3_600_000 },
  { name: '1d', ms: 86_400_000 },
] as const;

export type RollupResolution = (typeof rollupResolutions)[number]['name'];
export type HistoryResolution = 'raw' | RollupResolution;

/** History's resolutions, finest first: raw samples, then the rollups. */
export const historyResolutions: readonly HistoryResolution[] = ['raw', ...rollupResolutions.map(({ name }) => name)];

/** One Prometheus series a metric is exposed as on `/metrics`, labelled by database. */
export interface PrometheusSeries {
  name: string;
  /** The family's help text; series sharing a name share the first one's. */
  help: string;
  /** Fixed labels telling this metric apart from the others of the family. */
  labels?: Readonly<Record<string, string>>;
  /** Divides the stored value (percent to ratio, milliseconds to seconds). */
  divideBy?: number;
  /** Only databases of these engines (exporter-compatible names); default all. */
  engines?: readonly MetricEngine[];
  /** Adds a `source` label: how the sample's latency was obtained (`none` when unknown). */
  latencySourceLabel?: true;
}

export interface MetricDefinition {
  /** Name in `?metrics=`, history and alert rules; place in the API snapshot's `metrics` when `api`. */
  path: string;
  /** Engines whose collectors give it. */
  engines: readonly MetricEngine[];
  kind: MetricKind;
  unit: MetricUnit;
  /** Integers are validated as such on ingest. */
  precision: 'integer' | 'real';
  /**
   * The stored precision: history keeps a value as a whole multiple of this step (rounded to the
   * nearest), so a stored value differs from the collected one by at most half of it. Finer than any
   * figure shown (alert messages show two decimals); what it costs is bytes per stored value.
   */
  step: number;
  help: string;
  /** Resolutions history keeps it at: `raw` samples and the rollups; empty when not kept. */
  history: readonly HistoryResolution[];
  /** Column in `samples`; `<column>_avg|_min|_max` in `sample_rollups`. */
  column: string;
  /** Dotted place in the snapshot an agent sends. */
  snapshot: string;
  /** Whether the API snapshot (`GET /v1/databases/{id}/metrics`) shows it. */
  api: boolean;
  /** Agents before the metric leave it out of their snapshots: absent on ingest reads as null. */
  optionalOnIngest?: true;
  /** For latencies: the path of the rate they are weighted by over a range. */
  weightedBy?: string;
  prometheus: readonly PrometheusSeries[];
}

export type MetricCatalog = readonly MetricDefinition[];

const allEngines = databaseTypes;
const connectionsHelp = 'Client connections by state (active, idle, total, max).';
const latencyHelp = 'Query latency over the last interval: mean and 95th/99th percentiles (estimate or histogram).';

function connections(state: 'active' | 'idle' | 'total' | 'max', help: string) {
  return {
    path: `connections.${state}`,
    engines: allEngines,
    kind: 'gauge',
    unit: 'count',
    precision: 'integer',
    step: 1,
    help,
    history: historyResolutions,
    column: `connections_${state}`,
    snapshot: `metrics.connections.${state}`,
    api: true,
    prometheus: [{ name: 'dbmon_database_connections', help: connectionsHelp, labels: { state } }],
  } as const;
}

function latency(stat: 'avg' | 'p95' | 'p99', label: 'mean' | 'p95' | 'p99', help: string) {
  return {
    path: `latency.${stat}_query_time_ms`,
    engines: allEngines,
    kind: 'latency',
    unit: 'milliseconds',
    precision: 'real',
    step: 0.001,
    help,
    history: historyResolutions,
    column: `${stat}_query_time_ms`,
    snapshot: `metrics.latency.${stat}_query_time_ms`,
    api: true,
    weightedBy: 'throughput.queries_per_second',
    prometheus: [{ name: 'dbmon_database_query_latency_seconds', help: latencyHelp, labels: { stat: label }, divideBy: 1000, latencySourceLabel: true }],
  } as const;
}

function hostUsage(name: 'cpu' | 'memory' | 'disk', help: string, prometheusHelp: string) {
  return {
    path: `${name}_usage`,
    engines: allEngines,
    kind: 'gauge',
    unit: 'percent',
    precision: 'real',
    step: 0.001,
    help,
    history: historyResolutions,
    column: `${name}_usage`,
    snapshot: `metrics.${name}_usage`,
    api: true,
    prometheus: [{ name: `dbmon_database_${name}_usage_ratio`, help: prometheusHelp, divideBy: 100 }],
  } as const;
}

/**
 * The per-second rate of an engine counter the agent reports on `/metrics` under its exporter
 * name (`series`), as Prometheus's rate() gives it: history keeps it at every resolution, so what
 * the exporters' users graph outlives Prometheus's retention. The agent computes it between
 * consecutive cycles (none across an engine restart or a counter reset). Agents before these
 * metrics leave them out of their snapshots, so they are optional on ingest.
 */
function engineRate<Name extends string>(name: Name, series: string, engines: readonly MetricEngine[], help: string) {
  return {
    path: `rates.${name}`,
    engines,
    kind: 'rate',
    // Of bytes too (temp_bytes, Bytes_sent): what the help says is counted, per second.
    unit: 'per_second',
    precision: 'real',
    step: 0.001,
    help: `${help} Per second over the collection interval: rate(${series}).`,
    history: historyResolutions,
    column: `rate_${name}`,
    snapshot: `metrics.rates.${name}`,
    api: false,
    optionalOnIngest: true,
    prometheus: [],
  } as const;
}

function typedKeys<Key extends string>(record: Readonly<Record<Key, unknown>>): Key[] {
  return Object.keys(record) as Key[];
}

/** pg_stat_database counters the postgres mixin graphs as rates, with what they count. */
export const pgStatDatabaseRates = {
  xact_commit: 'Transactions committed in this database.',
  xact_rollback: 'Transactions rolled back in this database.',
  blks_read: 'Disk blocks read in this database (not found in shared buffers).',
  blks_hit: 'Disk blocks found in shared buffers in this database.',
  tup_returned: 'Live rows scanned by sequential scans and index entries returned by index scans in this database.',
  tup_fetched: 'Live rows fetched by index scans in this database.',
  tup_inserted: 'Rows inserted in this database.',
  tup_updated: 'Rows updated in this database.',
  tup_deleted: 'Rows deleted in this database.',
  temp_bytes: 'Bytes written to temporary files by queries in this database.',
  deadlocks: 'Deadlocks detected in this database.',
} as const;

/** SHOW GLOBAL STATUS counters the mysqld mixin graphs as rates, with what they count: server-wide, every schema's traffic. */
export const mysqlStatusRates = {
  Queries: 'Statements run by the server, those inside stored programs included (server-wide).',
  Questions: 'Statements sent by clients to the server (server-wide).',
  Slow_queries: 'Statements that took longer than long_query_time (server-wide).',
  Bytes_received: 'Bytes received from all clients (server-wide).',
  Bytes_sent: 'Bytes sent to all clients (server-wide).',
  Created_tmp_tables: 'Internal temporary tables created (server-wide).',
  Created_tmp_disk_tables: 'Internal temporary tables created on disk (server-wide).',
  // MariaDB reports no Innodb_rows_* (10.11 here): MySQL only.
  Innodb_rows_read: 'Rows read from InnoDB tables (server-wide; MySQL).',
  Innodb_rows_inserted: 'Rows inserted into InnoDB tables (server-wide; MySQL).',
  Innodb_rows_updated: 'Rows updated in InnoDB tables (server-wide; MySQL).',
  Innodb_rows_deleted: 'Rows deleted from InnoDB tables (server-wide; MySQL).',
} as const;

export const pgRatedColumns = typedKeys(pgStatDatabaseRates);
export const mysqlRatedStatusVariables = typedKeys(mysqlStatusRates);

const innodbRowsPrefix = 'Innodb_rows_';

/** The rate metric of a pg_stat_database column. */
export function pgStatDatabaseRatePath<Column extends keyof typeof pgStatDatabaseRates>(column: Column) {
  return `rates.pg_stat_database_${column}` as const;
}

/** The rate metric of a SHOW GLOBAL STATUS variable. */
export function mysqlStatusRatePath<Name extends keyof typeof mysqlStatusRates>(name: Name) {
  return `rates.mysql_global_status_${name.toLowerCase() as Lowercase<Name>}` as const;
}

function pgStatDatabaseRate<Column extends keyof typeof pgStatDatabaseRates>(column: Column) {
  return engineRate(`pg_stat_database_${column}`, `pg_stat_database_${column}`, ['postgresql'], pgStatDatabaseRates[column]);
}

function mysqlStatusRate<Name extends keyof typeof mysqlStatusRates>(name: Name) {
  const lower = name.toLowerCase() as Lowercase<Name>;
  if (!name.startsWith(innodbRowsPrefix)) return engineRate(`mysql_global_status_${lower}`, `mysql_global_status_${lower}`, ['mysql', 'mariadb'], mysqlStatusRates[name]);
  // mysqld_exporter exports Innodb_rows_<operation> as one family labelled by operation.
  const series = `mysql_global_status_innodb_row_ops_total{operation="${lower.slice(innodbRowsPrefix.length)}"}`;
  return engineRate(`mysql_global_status_${lower}`, series, ['mysql'], mysqlStatusRates[name]);
}

export const metricCatalog = [
  hostUsage('cpu', 'CPU in use on the host of the collecting agent, 0..100.', 'CPU in use on the host of the collecting agent, 0..1.'),
  hostUsage('memory', 'Memory in use on the host of the collecting agent, 0..100.', 'Memory in use on the host of the collecting agent, 0..1.'),
  hostUsage('disk', 'Disk in use on the file system of the database, 0..100.', 'Disk in use on the file system of the database, 0..1.'),
  connections('active', 'Client connections running a statement, the agent\'s own left out.'),
  connections('idle', 'Client connections not running a statement ("idle in transaction" included).'),
  connections('total', 'Client connections: active + idle.'),
  {
    ...connections('max', "The server's connection limit (max_connections), shared by all its databases."),
    prometheus: [
      { name: 'pg_settings_max_connections', help: 'PostgreSQL max_connections.', engines: ['postgresql'] },
      { name: 'mysql_global_variables_max_connections', help: 'MySQL/MariaDB max_connections.', engines: ['mysql', 'mariadb'] },
      { name: 'dbmon_database_connections', help: connectionsHelp, labels: { state: 'max' } },
    ],
  },
  {
    path: 'throughput.queries_per_second',
    engines: allEngines,
    kind: 'rate',
    unit: 'per_second',
    precision: 'real',
    step: 0.001,
    help:
      "Statements per second run in this database, the agent's own left out. PostgreSQL: pg_stat_statements calls of " +
      'the database. MySQL/MariaDB: performance_schema statement digests of the schema (statements run while it was ' +
      "the session's default schema), requests for a plan (EXPLAIN, DESCRIBE) left out; the server-wide counters " +
      '(mysql_global_status_questions ...) are on /metrics.',
    history: historyResolutions,
    column: 'queries_per_second',
    snapshot: 'metrics.throughput.queries_per_second',
    api: true,
    prometheus: [{ name: 'dbmon_database_queries_per_second', help: 'Queries per second over the last interval.' }],
  },
  {
    path: 'throughput.transactions_per_second',
    engines: allEngines,
    kind: 'rate',
    unit: 'per_second',
    precision: 'real',
    step: 0.001,
    help:
      'Transactions per second ended in this database. PostgreSQL: xact_commit + xact_rollback of pg_stat_database, ' +
      'autocommitted statements included. MySQL/MariaDB: statements that end a transaction explicitly (COMMIT, ROLLBACK, ' +
      "XA COMMIT, XA ROLLBACK) among the schema's statement digests; the engine counts no transactions per schema, so " +
      'autocommitted statements (each a transaction of its own) are not counted. Server-wide: ' +
      'mysql_global_status_commands_total{command="commit"|"rollback"} on /metrics.',
    history: historyResolutions,
    column: 'transactions_per_second',
    snapshot: 'metrics.throughput.transactions_per_second',
    api: true,
    prometheus: [{ name: 'dbmon_database_transactions_per_second', help: 'Transactions per second over the last interval.' }],
  },
  latency('avg', 'mean', 'Mean statement time, in milliseconds.'),
  latency('p95', 'p95', '95th percentile of statement time, in milliseconds.'),
  latency('p99', 'p99', '99th percentile of statement time, in milliseconds.'),
  {
    path: 'database_size_bytes',
    engines: allEngines,
    kind: 'gauge',
    unit: 'bytes',
    precision: 'real',
    step: 1,
    help: 'Size of the monitored database.',
    history: historyResolutions,
    column: 'database_size_bytes',
    snapshot: 'database_size_bytes',
    api: false,
    prometheus: [
      { name: 'pg_database_size_bytes', help: 'Size of the monitored PostgreSQL database.', engines: ['postgresql'] },
      { name: 'dbmon_database_size_bytes', help: 'Size of the monitored database.' },
    ],
  },
  ...pgRatedColumns.map(pgStatDatabaseRate),
  ...mysqlRatedStatusVariables.map(mysqlStatusRate),
] as const satisfies MetricCatalog;

type RealMetric = (typeof metricCatalog)[number];
export type MetricPath = RealMetric['path'];
export type MetricColumn = RealMetric['column'];

/** Values keyed by catalog path, as collectors report them; a path left out has no value. */
export type MetricValues = Partial<Record<MetricPath, number | null>>;

type Head<P extends string> = P extends `${infer H}.${string}` ? H : P;
type Rest<P extends string, H extends string> = P extends `${H}.${infer R}` ? R : never;
/** The object a set of dotted places makes: `a.b` and `a.c` give `{ a: { b, c } }`. */
type Nested<P extends string> = { [H in Head<P>]: H extends P ? number | null : Nested<Rest<P, H>> };

/** The real catalog's metrics at their places in the agent's snapshot. */
export type SnapshotMetricFields = Nested<RealMetric['snapshot']>;

/** A stored sample's metric columns. */
export type MetricColumns = Record<MetricColumn, number | null>;

export function metricByPath(catalog: MetricCatalog, path: string): MetricDefinition | undefined {
  return catalog.find((metric) => metric.path === path);
}

/** The metrics history keeps at a resolution. */
export function historyMetrics(catalog: MetricCatalog, resolution: HistoryResolution): MetricDefinition[] {
  return catalog.filter((metric) => metric.history.includes(resolution));
}

/** Values at dotted places as nested objects: `a.b` and `a.c` give `{ a: { b, c } }`. */
export function nestValues(entries: Iterable<readonly [place: string, value: unknown]>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [place, value] of entries) {
    const keys = place.split('.');
    let target = root;
    for (const key of keys.slice(0, -1)) target = (target[key] ??= {}) as Record<string, unknown>;
    target[keys.at(-1)!] = value;
  }
  return root;
}

/** A function reading the value at a dotted place of a parsed snapshot; built once, called per sample. */
export function placeReader(place: string): (snapshot: unknown) => number | null {
  const keys = place.split('.');
  return (snapshot) => {
    let value: unknown = snapshot;
    for (const key of keys) value = (value as Record<string, unknown> | undefined)?.[key];
    return typeof value === 'number' ? value : null;
  };
}
