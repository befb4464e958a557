-- How many values each rollup bucket averages, per metric, so that a coarser bucket is the
-- count-weighted mean of the finer ones (1m -> 5m -> 1h -> 1d) and a bucket not yet folded can be
-- read as a folded bucket plus its newer samples. NULL in buckets folded before this migration:
-- those weigh by their sample count.
ALTER TABLE sample_rollups ADD COLUMN cpu_usage_count INTEGER;
ALTER TABLE sample_rollups ADD COLUMN memory_usage_count INTEGER;
ALTER TABLE sample_rollups ADD COLUMN disk_usage_count INTEGER;
ALTER TABLE sample_rollups ADD COLUMN connections_active_count INTEGER;
ALTER TABLE sample_rollups ADD COLUMN connections_idle_count INTEGER;
ALTER TABLE sample_rollups ADD COLUMN connections_total_count INTEGER;
ALTER TABLE sample_rollups ADD COLUMN connections_max_count INTEGER;
ALTER TABLE sample_rollups ADD COLUMN queries_per_second_count INTEGER;
ALTER TABLE sample_rollups ADD COLUMN transactions_per_second_count INTEGER;
ALTER TABLE sample_rollups ADD COLUMN avg_query_time_ms_count INTEGER;
ALTER TABLE sample_rollups ADD COLUMN p95_query_time_ms_count INTEGER;
ALTER TABLE sample_rollups ADD COLUMN p99_query_time_ms_count INTEGER;
ALTER TABLE sample_rollups ADD COLUMN database_size_bytes_count INTEGER;
