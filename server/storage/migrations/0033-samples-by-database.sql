-- The open (unsealed) raw samples keyed by (database_id, ts) WITHOUT ROWID, instead of a rowid table
-- in arrival order with a unique index: a database-hour's rows lie together on a few pages, so the
-- seal job reads and deletes a few pages per hour instead of one page per row.
-- The arrival order the rollup job folds by (rollup_watermark) moves to `samples_pending`: one small
-- row per sample not folded yet, appended by a trigger and deleted by the pass that folds it, so that
-- neither the seal nor retention has an arrival index to update.
CREATE TABLE samples_by_database (
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
INSERT INTO samples_by_database SELECT
  database_id, ts, reachable, cpu_usage, memory_usage, disk_usage, connections_active, connections_idle,
  connections_total, connections_max, queries_per_second, transactions_per_second, avg_query_time_ms,
  p95_query_time_ms, p99_query_time_ms, latency_source, database_size_bytes,
  rate_pg_stat_database_xact_commit, rate_pg_stat_database_xact_rollback, rate_pg_stat_database_blks_read,
  rate_pg_stat_database_blks_hit, rate_pg_stat_database_tup_returned, rate_pg_stat_database_tup_fetched,
  rate_pg_stat_database_tup_inserted, rate_pg_stat_database_tup_updated, rate_pg_stat_database_tup_deleted,
  rate_pg_stat_database_temp_bytes, rate_pg_stat_database_deadlocks, rate_mysql_global_status_queries,
  rate_mysql_global_status_questions, rate_mysql_global_status_slow_queries, rate_mysql_global_status_bytes_received,
  rate_mysql_global_status_bytes_sent, rate_mysql_global_status_created_tmp_tables,
  rate_mysql_global_status_created_tmp_disk_tables, rate_mysql_global_status_innodb_rows_read,
  rate_mysql_global_status_innodb_rows_inserted, rate_mysql_global_status_innodb_rows_updated,
  rate_mysql_global_status_innodb_rows_deleted
FROM samples ORDER BY database_id, ts;

-- A sample's place in arrival order (seq, what rollup_watermark.last_sample_id counts) while the
-- rollup job has not folded it. No foreign key: a deleted database's entries fold to nothing.
CREATE TABLE samples_pending (
  seq INTEGER PRIMARY KEY,
  database_id TEXT NOT NULL,
  ts INTEGER NOT NULL
);
INSERT INTO samples_pending (seq, database_id, ts)
  SELECT id, database_id, ts FROM samples WHERE id > (SELECT last_sample_id FROM rollup_watermark WHERE id = 1);

DROP TABLE samples;
ALTER TABLE samples_by_database RENAME TO samples;

-- Numbered past the watermark even when every entry below it is gone: one numbered below it would
-- never be folded (as a rowid reused once every row was sealed was).
CREATE TRIGGER samples_pending_on_insert AFTER INSERT ON samples BEGIN
  INSERT INTO samples_pending (seq, database_id, ts) VALUES (
    max(coalesce((SELECT max(seq) FROM samples_pending), 0), (SELECT last_sample_id FROM rollup_watermark WHERE id = 1)) + 1,
    NEW.database_id, NEW.ts);
END;
