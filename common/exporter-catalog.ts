import type { MetricEngine } from './metric-catalog.js';

/**
 * The engine series dbmon exposes under postgres_exporter's and mysqld_exporter's names, types
 * and labels, so that dashboards and rules written for the exporters read dbmon unchanged.
 * Collectors report them in the snapshot's `counters`, keyed by `seriesKey`; the server exposes
 * a reported series only when its family is listed here for the database's engine, with exactly
 * the family's labels. Adding one is an entry here and its collector query.
 */
export type ExporterType = 'gauge' | 'counter';

export interface ExporterFamily {
  name: string;
  help: string;
  /** The exporter's type (exposed as untyped where the exporter's name breaks the text format's conventions). */
  type: ExporterType;
  /** Label names, in the order they are written. */
  labels: readonly string[];
  engines: readonly MetricEngine[];
}

const postgres: readonly MetricEngine[] = ['postgresql'];
const mysql: readonly MetricEngine[] = ['mysql', 'mariadb'];

function family(name: string, type: ExporterType, engines: readonly MetricEngine[], help: string, labels: readonly string[] = []): ExporterFamily {
  return { name, help, type, labels, engines };
}

/** pg_stat_database columns, as postgres_exporter exports them: all counters but numbackends. */
export const pgStatDatabaseColumns = [
  'numbackends',
  'xact_commit',
  'xact_rollback',
  'blks_read',
  'blks_hit',
  'tup_returned',
  'tup_fetched',
  'tup_inserted',
  'tup_updated',
  'tup_deleted',
  'conflicts',
  'temp_files',
  'temp_bytes',
  'deadlocks',
  'blk_read_time',
  'blk_write_time',
] as const;

/** pg_stat_bgwriter columns exported as pg_stat_bgwriter_<column>_total; the first five moved to pg_stat_checkpointer in PostgreSQL 17. */
export const pgBgwriterColumns = [
  'checkpoints_timed',
  'checkpoints_req',
  'checkpoint_write_time',
  'checkpoint_sync_time',
  'buffers_checkpoint',
  'buffers_backend',
  'buffers_backend_fsync',
  'buffers_clean',
  'maxwritten_clean',
  'buffers_alloc',
] as const;

/** pg_stat_checkpointer columns (PostgreSQL 17 on) exported as pg_stat_checkpointer_<column>_total. */
export const pgCheckpointerColumns = ['num_timed', 'num_requested', 'write_time', 'sync_time', 'buffers_written'] as const;

/** pg_locks modes, each reported (0 when none is held) as postgres_exporter does. */
export const pgLockModes = [
  'accesssharelock',
  'rowsharelock',
  'rowexclusivelock',
  'shareupdateexclusivelock',
  'sharelock',
  'sharerowexclusivelock',
  'exclusivelock',
  'accessexclusivelock',
  'sireadlock',
] as const;

/** Backend states, each reported (0 when no session is in it) as postgres_exporter does. */
export const pgActivityStates = ['active', 'idle', 'idle in transaction', 'idle in transaction (aborted)', 'fastpath function call', 'disabled'] as const;

/**
 * pg_settings exported as pg_settings_<name>: those the postgres mixin's alerts read (max_connections
 * comes from the metric catalog's connections.max). All have no unit: postgres_exporter converts a
 * setting with one and names it `_seconds` or `_bytes`.
 */
export const pgSettings = ['autovacuum_vacuum_scale_factor', 'autovacuum_vacuum_threshold', 'max_locks_per_transaction', 'superuser_reserved_connections'] as const;

/**
 * pg_stat_user_tables columns exported as pg_stat_user_tables_<column>{datname,schemaname,relname}
 * for the largest tables; `last_*` in seconds since the epoch, 0 for never, as postgres_exporter does.
 */
export const pgUserTablesColumns = {
  counter: [
    'seq_scan', 'seq_tup_read', 'idx_scan', 'idx_tup_fetch', 'n_tup_ins', 'n_tup_upd', 'n_tup_del', 'n_tup_hot_upd',
    'vacuum_count', 'autovacuum_count', 'analyze_count', 'autoanalyze_count',
  ],
  gauge: ['n_live_tup', 'n_dead_tup', 'n_mod_since_analyze', 'last_vacuum', 'last_autovacuum', 'last_analyze', 'last_autoanalyze'],
} as const;

/**
 * SHOW GLOBAL STATUS variables exported as mysql_global_status_<name in lower case>, with the
 * exporter's type; those the mysqld mixin's dashboard and alerts read, and the server's traffic.
 */
export const mysqlStatusVariables = {
  counter: [
    'Aborted_clients', 'Aborted_connects', 'Bytes_received', 'Bytes_sent', 'Connections', 'Created_tmp_disk_tables',
    'Created_tmp_files', 'Created_tmp_tables', 'Innodb_buffer_pool_read_requests', 'Innodb_buffer_pool_reads',
    'Innodb_data_reads', 'Innodb_data_writes', 'Innodb_row_lock_time', 'Innodb_row_lock_waits', 'Opened_files',
    'Opened_table_definitions', 'Opened_tables', 'Qcache_hits', 'Qcache_inserts', 'Qcache_lowmem_prunes', 'Qcache_not_cached',
    'Queries', 'Questions', 'Select_full_join', 'Select_full_range_join', 'Select_range', 'Select_range_check', 'Select_scan',
    'Slow_queries', 'Sort_merge_passes', 'Sort_range', 'Sort_rows', 'Sort_scan', 'Table_locks_immediate', 'Table_locks_waited',
    'Table_open_cache_hits', 'Table_open_cache_misses', 'Table_open_cache_overflows', 'Threads_created', 'Innodb_log_waits',
  ],
  gauge: [
    'Innodb_mem_adaptive_hash', 'Innodb_mem_dictionary', 'Innodb_num_open_files', 'Innodb_page_size', 'Max_used_connections',
    'Open_files', 'Open_table_definitions', 'Open_tables', 'Qcache_free_memory', 'Qcache_queries_in_cache', 'Threads_cached',
    'Threads_connected', 'Threads_running', 'Uptime',
    // Galera's (MariaDB Cluster): wsrep_ready is OFF on a server without a cluster, the others absent.
    'wsrep_ready', 'wsrep_local_state', 'wsrep_local_recv_queue',
  ],
} as const;

/** SHOW GLOBAL STATUS prefixes mysqld_exporter turns into one labelled family each. */
export const mysqlStatusFamilies = [
  { prefix: 'Com_', name: 'mysql_global_status_commands_total', label: 'command', type: 'counter', help: 'Statements run by the server, by command (Com_*).' },
  { prefix: 'Handler_', name: 'mysql_global_status_handlers_total', label: 'handler', type: 'counter', help: 'Storage engine handler calls, by handler (Handler_*).' },
  { prefix: 'Innodb_rows_', name: 'mysql_global_status_innodb_row_ops_total', label: 'operation', type: 'counter', help: 'InnoDB row operations, by operation (Innodb_rows_*).' },
  {
    prefix: 'Innodb_buffer_pool_pages_',
    name: 'mysql_global_status_buffer_pool_pages',
    label: 'state',
    type: 'gauge',
    help: 'InnoDB buffer pool pages, by state (Innodb_buffer_pool_pages_*).',
    states: ['data', 'dirty', 'free', 'misc', 'total'],
  },
] as const;

/** SHOW GLOBAL VARIABLES exported as mysql_global_variables_<name>: those the mysqld mixin's dashboard and alerts read (max_connections comes from the metric catalog's connections.max). */
export const mysqlGlobalVariables = [
  'innodb_buffer_pool_size', 'innodb_log_buffer_size', 'key_buffer_size', 'open_files_limit',
  'query_cache_size', 'table_definition_cache', 'table_open_cache', 'thread_cache_size', 'wsrep_desync',
] as const;

const userTable = ['datname', 'schemaname', 'relname'];

/**
 * Replica status columns exported as mysql_slave_status_<column> (mysqld_exporter's names, which
 * the mysqld mixin reads), one series per replication channel; MySQL 8.0.22's renamed columns
 * (Seconds_Behind_Source, Replica_IO_Running ...) are exported under these names too.
 */
export const mysqlReplicaStatusColumns = [
  'seconds_behind_master', 'sql_delay', 'slave_io_running', 'slave_sql_running', 'read_master_log_pos', 'exec_master_log_pos',
  'relay_log_space', 'last_io_errno', 'last_sql_errno',
] as const;
const replicaChannel = ['master_host', 'master_uuid', 'channel_name', 'connection_name'];

export const exporterCatalog: readonly ExporterFamily[] = [
  ...pgStatDatabaseColumns.map((column) =>
    family(`pg_stat_database_${column}`, column === 'numbackends' ? 'gauge' : 'counter', postgres, `pg_stat_database.${column} of the monitored database.`, ['datid', 'datname']),
  ),
  family('pg_stat_activity_count', 'gauge', postgres, 'Client connections to the monitored database by state, the agent\'s own left out.', ['datname', 'state']),
  family('pg_stat_activity_max_tx_duration', 'gauge', postgres, 'Longest running transaction by connection state, in seconds.', ['datname', 'state']),
  family('pg_locks_count', 'gauge', postgres, 'Locks held in the monitored database, by mode.', ['datname', 'mode']),
  ...pgBgwriterColumns.map((column) => family(`pg_stat_bgwriter_${column}_total`, 'counter', postgres, `pg_stat_bgwriter.${column} (up to PostgreSQL 16 for checkpoint and backend columns).`)),
  ...pgCheckpointerColumns.map((column) => family(`pg_stat_checkpointer_${column}_total`, 'counter', postgres, `pg_stat_checkpointer.${column} (PostgreSQL 17 on).`)),
  ...pgUserTablesColumns.counter.map((column) => family(`pg_stat_user_tables_${column}`, 'counter', postgres, `pg_stat_user_tables.${column} of the largest tables.`, userTable)),
  ...pgUserTablesColumns.gauge.map((column) => family(`pg_stat_user_tables_${column}`, 'gauge', postgres, `pg_stat_user_tables.${column} of the largest tables.`, userTable)),
  ...pgSettings.map((name) => family(`pg_settings_${name}`, 'gauge', postgres, `PostgreSQL setting ${name}.`)),
  family('pg_postmaster_start_time_seconds', 'gauge', postgres, 'Time the PostgreSQL server started, in seconds since the epoch.'),
  family('pg_replication_is_replica', 'gauge', postgres, 'Whether the server is a replica in recovery (1) or not (0).'),
  family('pg_replication_lag', 'gauge', postgres, 'On a replica: seconds since the last replayed transaction; 0 on a primary.'),
  family('pg_stat_replication_pg_wal_lsn_diff', 'gauge', postgres, 'On a primary: bytes of WAL each replica has yet to replay.', ['application_name', 'client_addr', 'state']),
  family('pg_stat_replication_replay_lag_seconds', 'gauge', postgres, 'On a primary: replay lag of each replica, in seconds.', ['application_name', 'client_addr', 'state']),
  family('pg_stat_statements_calls_total', 'counter', postgres, 'Calls of each of the top statements by total time (pg_stat_statements).', ['user', 'datname', 'queryid']),
  family('pg_stat_statements_seconds_total', 'counter', postgres, 'Total time of each of the top statements by total time, in seconds.', ['user', 'datname', 'queryid']),
  family('pg_stat_statements_rows_total', 'counter', postgres, 'Rows retrieved or affected by each of the top statements by total time.', ['user', 'datname', 'queryid']),
  ...mysqlStatusVariables.counter.map((name) => family(`mysql_global_status_${name.toLowerCase()}`, 'counter', mysql, `SHOW GLOBAL STATUS ${name}.`)),
  ...mysqlStatusVariables.gauge.map((name) => family(`mysql_global_status_${name.toLowerCase()}`, 'gauge', mysql, `SHOW GLOBAL STATUS ${name}.`)),
  ...mysqlStatusFamilies.map(({ name, type, help, label }) => family(name, type, mysql, help, [label])),
  ...mysqlGlobalVariables.map((name) => family(`mysql_global_variables_${name}`, 'gauge', mysql, `SHOW GLOBAL VARIABLES ${name}.`)),
  ...mysqlReplicaStatusColumns.map((column) => family(`mysql_slave_status_${column}`, 'gauge', mysql, `Replica status ${column} of each replication channel (switches as 1 and 0).`, replicaChannel)),
  family('mysql_info_schema_processlist_threads', 'gauge', mysql, 'Server threads by command and state (information_schema.PROCESSLIST), the agent\'s own left out.', ['command', 'state']),
];

/** A series' key in the snapshot's `counters`: its name, then its labels in the text format (`name{a="x"}`). */
export function seriesKey(name: string, labels: Readonly<Record<string, string>> = {}): string {
  const pairs = Object.entries(labels).map(([label, value]) => `${label}="${escapeLabelValue(value)}"`);
  return pairs.length === 0 ? name : `${name}{${pairs.join(',')}}`;
}

export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
