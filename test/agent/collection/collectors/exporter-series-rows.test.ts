import t from 'tap';
import { globalStatusCounters, statusRateCounters } from '../../../../agent/collection/collectors/mysql/mysql-global-status-collector.js';
import { replicaStatusCounters } from '../../../../agent/collection/collectors/mysql/mysql-replica-status-collector.js';
import { mysqlValue } from '../../../../agent/collection/collectors/mysql/mysql-value.js';
import { activityContribution } from '../../../../agent/collection/collectors/postgres/postgres-activity-collector.js';
import { bgwriterCounters } from '../../../../agent/collection/collectors/postgres/postgres-bgwriter-collector.js';
import { topStatementCounters } from '../../../../agent/collection/collectors/postgres/postgres-statements-collector.js';
import { replicationCounters } from '../../../../agent/collection/collectors/postgres/postgres-replication-collector.js';
import { settingCounters } from '../../../../agent/collection/collectors/postgres/postgres-settings-collector.js';
import { userTableCounters } from '../../../../agent/collection/collectors/postgres/postgres-user-tables-collector.js';

// Rows as the engines this machine does not run return them (PostgreSQL 12, 16, 17; MySQL 8.0),
// recorded from their documentation's column lists and from sessions on those versions.

const pg16Bgwriter = {
  version_num: 160004,
  stats: {
    checkpoints_timed: 40, checkpoints_req: 2, checkpoint_write_time: 1500.5, checkpoint_sync_time: 12, buffers_checkpoint: 900,
    buffers_clean: 3, maxwritten_clean: 0, buffers_backend: 77, buffers_backend_fsync: 0, buffers_alloc: 4000, stats_reset: '2026-11-01T00:00:00Z',
  },
};
// pg_stat_bgwriter of PostgreSQL 17 kept three columns; the checkpoint ones moved to pg_stat_checkpointer.
const pg17Bgwriter = { version_num: 170002, stats: { buffers_clean: 5, maxwritten_clean: 1, buffers_alloc: 5100, stats_reset: '2026-11-01T00:00:00Z' } };
const pg17Checkpointer = {
  stats: { num_timed: 41, num_requested: 3, restartpoints_timed: 0, restartpoints_req: 0, restartpoints_done: 0, write_time: 1600, sync_time: 13, buffers_written: 950, stats_reset: '2026-11-01T00:00:00Z' },
};

t.test('PostgreSQL 12 to 16: every pg_stat_bgwriter counter, no checkpointer series', async (t) => {
  const counters = bgwriterCounters(pg16Bgwriter, undefined);
  t.equal(Object.keys(counters).length, 10);
  t.equal(counters.pg_stat_bgwriter_checkpoints_timed_total, 40);
  t.equal(counters.pg_stat_bgwriter_checkpoint_write_time_total, 1500.5);
  t.equal(counters.pg_stat_bgwriter_buffers_backend_total, 77);
  t.notOk(Object.keys(counters).some((key) => key.startsWith('pg_stat_checkpointer')));
});

t.test('PostgreSQL 17: the bgwriter keeps three counters, the checkpoint ones come from pg_stat_checkpointer', async (t) => {
  const counters = bgwriterCounters(pg17Bgwriter, pg17Checkpointer);
  t.same(counters, {
    pg_stat_bgwriter_buffers_clean_total: 5,
    pg_stat_bgwriter_maxwritten_clean_total: 1,
    pg_stat_bgwriter_buffers_alloc_total: 5100,
    pg_stat_checkpointer_num_timed_total: 41,
    pg_stat_checkpointer_num_requested_total: 3,
    pg_stat_checkpointer_write_time_total: 1600,
    pg_stat_checkpointer_sync_time_total: 13,
    pg_stat_checkpointer_buffers_written_total: 950,
  });
  t.same(bgwriterCounters({ stats: JSON.stringify(pg17Bgwriter.stats) }, undefined), {
    pg_stat_bgwriter_buffers_clean_total: 5,
    pg_stat_bgwriter_maxwritten_clean_total: 1,
    pg_stat_bgwriter_buffers_alloc_total: 5100,
  }, 'a json column read as text is parsed');
});

t.test('replication: a primary with two replicas, a replica, a replica that replayed nothing yet', async (t) => {
  const primary = replicationCounters({ is_replica: false, lag: 0 }, [
    { application_name: 'walreceiver', client_addr: '10.0.0.2', state: 'streaming', lag_bytes: '16384', lag_seconds: 0.25 },
    { application_name: 'standby2', client_addr: '', state: 'catchup', lag_bytes: null, lag_seconds: null },
  ]);
  t.same(primary, {
    pg_replication_is_replica: 0,
    pg_replication_lag: 0,
    'pg_stat_replication_pg_wal_lsn_diff{application_name="walreceiver",client_addr="10.0.0.2",state="streaming"}': 16384,
    'pg_stat_replication_replay_lag_seconds{application_name="walreceiver",client_addr="10.0.0.2",state="streaming"}': 0.25,
    'pg_stat_replication_replay_lag_seconds{application_name="standby2",client_addr="",state="catchup"}': 0,
  });
  t.same(replicationCounters({ is_replica: true, lag: '12.5' }, []), { pg_replication_is_replica: 1, pg_replication_lag: 12.5 });
  t.same(replicationCounters({ is_replica: true, lag: null }, []), { pg_replication_is_replica: 1 }, 'an unknown lag is left out, not 0');
});

t.test('activity by state: connections add up, every state listed', async (t) => {
  const row = (state: string, count: number, max_tx_duration = 0) => ({ datname: 'shop', max: 100, state, count: String(count), max_tx_duration });
  const contribution = activityContribution([row('active', 2, 3.5), row('idle', 5), row('idle in transaction', 1, 60), row('disabled', 0)]);
  t.same(contribution.values, { 'connections.active': 2, 'connections.idle': 6, 'connections.total': 8, 'connections.max': 100 });
  t.equal(contribution.counters?.['pg_stat_activity_count{datname="shop",state="idle in transaction"}'], 1);
  t.equal(contribution.counters?.['pg_stat_activity_max_tx_duration{datname="shop",state="idle in transaction"}'], 60);
  t.same(activityContribution([]).values, { 'connections.active': 0, 'connections.idle': 0, 'connections.total': 0, 'connections.max': null });
});

t.test('MySQL 8.0 status: labelled families, no query cache, values that are not numbers left out', async (t) => {
  const rows = [
    ['Com_select', '1200'], ['Com_stmt_execute', '7'], ['Handler_read_rnd_next', '99'], ['Handler_commit', '12'],
    ['Innodb_buffer_pool_pages_data', '505'], ['Innodb_buffer_pool_pages_flushed', '3'], ['Innodb_buffer_pool_pages_total', '8192'],
    ['Questions', '5000'], ['Uptime', '3600'], ['Threads_running', '2'], ['Innodb_page_size', '16384'], ['Table_open_cache_hits', '40'],
  ].map(([Variable_name, Value]) => ({ Variable_name, Value }));
  t.same(globalStatusCounters([...rows, { Variable_name: 'Com_ssl_cipher_list', Value: '' }, { Variable_name: 'Rsa_public_key', Value: '-----BEGIN' }]), {
    'mysql_global_status_commands_total{command="select"}': 1200,
    'mysql_global_status_commands_total{command="stmt_execute"}': 7,
    'mysql_global_status_handlers_total{handler="read_rnd_next"}': 99,
    'mysql_global_status_handlers_total{handler="commit"}': 12,
    'mysql_global_status_buffer_pool_pages{state="data"}': 505,
    'mysql_global_status_buffer_pool_pages{state="total"}': 8192,
    mysql_global_status_questions: 5000,
    mysql_global_status_uptime: 3600,
    mysql_global_status_threads_running: 2,
    mysql_global_status_innodb_page_size: 16384,
    mysql_global_status_table_open_cache_hits: 40,
  });
});

t.test("MySQL 8.0 status: InnoDB row operations as mysqld_exporter's family, and as the counters of their rates", async (t) => {
  const rows = [['Innodb_rows_read', '9000'], ['Innodb_rows_inserted', '120'], ['Innodb_rows_updated', '30'], ['Innodb_rows_deleted', '4'], ['Questions', '5000']].map(
    ([Variable_name, Value]) => ({ Variable_name, Value }),
  );
  t.same(globalStatusCounters(rows), {
    'mysql_global_status_innodb_row_ops_total{operation="read"}': 9000,
    'mysql_global_status_innodb_row_ops_total{operation="inserted"}': 120,
    'mysql_global_status_innodb_row_ops_total{operation="updated"}': 30,
    'mysql_global_status_innodb_row_ops_total{operation="deleted"}': 4,
    mysql_global_status_questions: 5000,
  });
  t.same(statusRateCounters([...rows, { Variable_name: 'Slow_queries', Value: '' }]), {
    'rates.mysql_global_status_innodb_rows_read': 9000,
    'rates.mysql_global_status_innodb_rows_inserted': 120,
    'rates.mysql_global_status_innodb_rows_updated': 30,
    'rates.mysql_global_status_innodb_rows_deleted': 4,
    'rates.mysql_global_status_questions': 5000,
  }, 'a variable without a number, or missing, has no counter');
});

t.test('pg_stat_statements: only the top statements by total time, seconds from milliseconds', async (t) => {
  const row = (queryid: string, total_ms: number) => ({ username: 'app', datname: 'shop', queryid, calls: '10', rows: 20, total_ms });
  const counters = topStatementCounters([row('1', 5), row('2', 1500), row('3', 40)], 2);
  t.same(counters, {
    'pg_stat_statements_calls_total{user="app",datname="shop",queryid="2"}': 10,
    'pg_stat_statements_seconds_total{user="app",datname="shop",queryid="2"}': 1.5,
    'pg_stat_statements_rows_total{user="app",datname="shop",queryid="2"}': 20,
    'pg_stat_statements_calls_total{user="app",datname="shop",queryid="3"}': 10,
    'pg_stat_statements_seconds_total{user="app",datname="shop",queryid="3"}': 0.04,
    'pg_stat_statements_rows_total{user="app",datname="shop",queryid="3"}': 20,
  });
});

t.test('a Galera node (MariaDB Cluster): its switches as 1 and 0, as mysqld_exporter reads them', async (t) => {
  const rows = [['wsrep_ready', 'ON'], ['wsrep_local_state', '4'], ['wsrep_local_recv_queue', '0'], ['Innodb_log_waits', '3'], ['wsrep_cluster_status', 'Primary']];
  t.same(globalStatusCounters(rows.map(([Variable_name, Value]) => ({ Variable_name, Value }))), {
    mysql_global_status_wsrep_ready: 1,
    mysql_global_status_wsrep_local_state: 4,
    mysql_global_status_wsrep_local_recv_queue: 0,
    mysql_global_status_innodb_log_waits: 3,
  });
  t.same([mysqlValue('OFF'), mysqlValue('yes'), mysqlValue('No'), mysqlValue('12.5'), mysqlValue(''), mysqlValue('DISABLED')], [0, 1, 0, 12.5, null, null]);
});

t.test('pg_settings: the values arrive as text; one a version lacks is simply absent', async (t) => {
  t.same(settingCounters([{ name: 'autovacuum_vacuum_scale_factor', setting: '0.2' }, { name: 'superuser_reserved_connections', setting: '3' }]), {
    pg_settings_autovacuum_vacuum_scale_factor: 0.2,
    pg_settings_superuser_reserved_connections: 3,
  });
});

t.test('pg_stat_user_tables: a table without an index and never vacuumed has 0 there, as the exporter has it', async (t) => {
  const counters = userTableCounters([
    {
      datname: 'shop', schemaname: 'public', relname: 'events', seq_scan: '12', seq_tup_read: '3400', idx_scan: null, idx_tup_fetch: null,
      n_tup_ins: '500', n_tup_upd: '7', n_tup_del: '1', n_tup_hot_upd: '6', vacuum_count: '0', autovacuum_count: '2', analyze_count: '1',
      autoanalyze_count: '3', n_live_tup: '499', n_dead_tup: '8', n_mod_since_analyze: '4', last_vacuum: null, last_autovacuum: '1795000000.25',
      last_analyze: '1795000100', last_autoanalyze: null,
    },
  ]);
  const labels = '{datname="shop",schemaname="public",relname="events"}';
  t.equal(Object.keys(counters).length, 19);
  t.equal(counters[`pg_stat_user_tables_idx_scan${labels}`], 0);
  t.equal(counters[`pg_stat_user_tables_last_vacuum${labels}`], 0);
  t.equal(counters[`pg_stat_user_tables_last_autovacuum${labels}`], 1795000000.25);
  t.equal(counters[`pg_stat_user_tables_n_dead_tup${labels}`], 8);
  t.equal(counters[`pg_stat_user_tables_seq_tup_read${labels}`], 3400);
});

t.test("replica status: MariaDB's connections and MySQL 8.0.22's renamed columns under the exporter's names", async (t) => {
  const mariadb = {
    Connection_name: 'east', Master_Host: 'db-east', Slave_IO_Running: 'Yes', Slave_SQL_Running: 'Yes', Seconds_Behind_Master: '3', SQL_Delay: '0',
    Read_Master_Log_Pos: '4711', Exec_Master_Log_Pos: '4700', Relay_Log_Space: '9000', Last_IO_Errno: '0', Last_SQL_Errno: '0', Master_Log_File: 'bin.000007',
  };
  const mariadbLabels = '{master_host="db-east",master_uuid="",channel_name="",connection_name="east"}';
  t.same(replicaStatusCounters([mariadb]), {
    [`mysql_slave_status_seconds_behind_master${mariadbLabels}`]: 3,
    [`mysql_slave_status_sql_delay${mariadbLabels}`]: 0,
    [`mysql_slave_status_slave_io_running${mariadbLabels}`]: 1,
    [`mysql_slave_status_slave_sql_running${mariadbLabels}`]: 1,
    [`mysql_slave_status_read_master_log_pos${mariadbLabels}`]: 4711,
    [`mysql_slave_status_exec_master_log_pos${mariadbLabels}`]: 4700,
    [`mysql_slave_status_relay_log_space${mariadbLabels}`]: 9000,
    [`mysql_slave_status_last_io_errno${mariadbLabels}`]: 0,
    [`mysql_slave_status_last_sql_errno${mariadbLabels}`]: 0,
  });
  const mysql8 = {
    Source_Host: '10.0.0.5', Source_UUID: '3e11fa47-71ca-11e1-9e33-c80aa9429562', Channel_Name: '', Replica_IO_Running: 'Connecting',
    Replica_SQL_Running: 'Yes', Seconds_Behind_Source: null, SQL_Delay: '60', Read_Source_Log_Pos: '157', Exec_Source_Log_Pos: '157',
    Relay_Log_Space: '500', Last_IO_Errno: '2003', Last_SQL_Errno: '0',
  };
  const mysqlLabels = '{master_host="10.0.0.5",master_uuid="3e11fa47-71ca-11e1-9e33-c80aa9429562",channel_name="",connection_name=""}';
  const counters = replicaStatusCounters([mysql8]);
  t.equal(counters[`mysql_slave_status_slave_io_running${mysqlLabels}`], 0, 'still connecting is not running');
  t.equal(counters[`mysql_slave_status_sql_delay${mysqlLabels}`], 60);
  t.equal(counters[`mysql_slave_status_last_io_errno${mysqlLabels}`], 2003);
  t.notOk(`mysql_slave_status_seconds_behind_master${mysqlLabels}` in counters, 'an unknown lag is no series, not 0');
  t.equal(Object.keys(counters).length, 8);
});
