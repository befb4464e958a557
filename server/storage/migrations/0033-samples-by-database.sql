-- The open (unsealed) raw samples keyed by (database_id, ts) WITHOUT ROWID, instead of a rowid table
-- in arrival order with a unique index: a database-hour's rows lie together on a few pages, so the
-- seal job reads and deletes a few pages per hour instead of one page per row, and a batch's insert
-- writes one leaf per database instead of a table page plus an index leaf. `id` stays the arrival
-- order the rollup job folds by (rollup_watermark), now an ordinary column with its own index.
CREATE TABLE samples_by_database (
  id INTEGER NOT NULL,
  database_id TEXT NOT NULL REFERENCES databases (id) ON DELETE CASCADE,
  ts INTEGER NOT NULL,
  reachable INTEGER NOT NULL,
  cpu_usage REAL,
  memory_usage REAL,
  disk_usage REAL,
  connections_active INTEGER,
  connections_idle INTEGER,
  connections_total INTEGER,
  connections_max INTEGER,
  queries_per_second REAL,
  transactions_per_second REAL,
  avg_query_time_ms REAL,
  p95_query_time_ms REAL,
  p99_query_time_ms REAL,
  latency_source TEXT,
  database_size_bytes INTEGER,
  rate_pg_stat_database_xact_commit REAL,
  rate_pg_stat_database_xact_rollback REAL,
  rate_pg_stat_database_blks_read REAL,
  rate_pg_stat_database_blks_hit REAL,
  rate_pg_stat_database_tup_returned REAL,
  rate_pg_stat_database_tup_fetched REAL,
  rate_pg_stat_database_tup_inserted REAL,
  rate_pg_stat_database_tup_updated REAL,
  rate_pg_stat_database_tup_deleted REAL,
  rate_pg_stat_database_temp_bytes REAL,
  rate_pg_stat_database_deadlocks REAL,
  rate_mysql_global_status_queries REAL,
  rate_mysql_global_status_questions REAL,
  rate_mysql_global_status_slow_queries REAL,
  rate_mysql_global_status_bytes_received REAL,
  rate_mysql_global_status_bytes_sent REAL,
  rate_mysql_global_status_created_tmp_tables REAL,
  rate_mysql_global_status_created_tmp_disk_tables REAL,
  rate_mysql_global_status_innodb_rows_read REAL,
  rate_mysql_global_status_innodb_rows_inserted REAL,
  rate_mysql_global_status_innodb_rows_updated REAL,
  rate_mysql_global_status_innodb_rows_deleted REAL,
  PRIMARY KEY (database_id, ts)
) WITHOUT ROWID;
INSERT INTO samples_by_database SELECT * FROM samples ORDER BY database_id, ts;
DROP TABLE samples;
ALTER TABLE samples_by_database RENAME TO samples;
CREATE UNIQUE INDEX samples_arrival ON samples (id);
