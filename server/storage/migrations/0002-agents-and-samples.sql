CREATE TABLE agents (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  api_key_id TEXT NOT NULL UNIQUE REFERENCES api_keys (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  hostname TEXT,
  version TEXT,
  spool_dropped_total INTEGER NOT NULL DEFAULT 0,
  last_seen_at TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX agents_org ON agents (org_id, created_at);

ALTER TABLE databases ADD COLUMN agent_id TEXT REFERENCES agents (id) ON DELETE SET NULL;
CREATE INDEX databases_agent ON databases (agent_id);

-- One row per snapshot: the layout every range query and rollup reads in (database_id, ts) order.
CREATE TABLE samples (
  id INTEGER PRIMARY KEY,
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
  UNIQUE (database_id, ts)
);

-- The newest snapshot's extras per database, for the Prometheus endpoint.
CREATE TABLE latest_snapshots (
  database_id TEXT PRIMARY KEY REFERENCES databases (id) ON DELETE CASCADE,
  ts INTEGER NOT NULL,
  reachable INTEGER NOT NULL,
  error TEXT,
  counters TEXT NOT NULL,
  collectors TEXT NOT NULL
);

-- Batch ids already stored, so a retried batch is stored once.
CREATE TABLE ingested_batches (
  source TEXT NOT NULL,
  batch_id TEXT NOT NULL,
  received_at INTEGER NOT NULL,
  PRIMARY KEY (source, batch_id)
) WITHOUT ROWID;
CREATE INDEX ingested_batches_received ON ingested_batches (received_at);

CREATE TABLE sample_rollups (
  database_id TEXT NOT NULL REFERENCES databases (id) ON DELETE CASCADE,
  resolution TEXT NOT NULL CHECK (resolution IN ('1m', '5m', '1h', '1d')),
  bucket INTEGER NOT NULL,
  samples INTEGER NOT NULL,
  cpu_usage_avg REAL,
  cpu_usage_min REAL,
  cpu_usage_max REAL,
  memory_usage_avg REAL,
  memory_usage_min REAL,
  memory_usage_max REAL,
  disk_usage_avg REAL,
  disk_usage_min REAL,
  disk_usage_max REAL,
  connections_active_avg REAL,
  connections_active_min REAL,
  connections_active_max REAL,
  connections_idle_avg REAL,
  connections_idle_min REAL,
  connections_idle_max REAL,
  connections_total_avg REAL,
  connections_total_min REAL,
  connections_total_max REAL,
  connections_max_avg REAL,
  connections_max_min REAL,
  connections_max_max REAL,
  queries_per_second_avg REAL,
  queries_per_second_min REAL,
  queries_per_second_max REAL,
  transactions_per_second_avg REAL,
  transactions_per_second_min REAL,
  transactions_per_second_max REAL,
  avg_query_time_ms_avg REAL,
  avg_query_time_ms_min REAL,
  avg_query_time_ms_max REAL,
  p95_query_time_ms_avg REAL,
  p95_query_time_ms_min REAL,
  p95_query_time_ms_max REAL,
  p99_query_time_ms_avg REAL,
  p99_query_time_ms_min REAL,
  p99_query_time_ms_max REAL,
  database_size_bytes_avg REAL,
  database_size_bytes_min REAL,
  database_size_bytes_max REAL,
  PRIMARY KEY (database_id, resolution, bucket)
) WITHOUT ROWID;

-- Highest samples.id already folded into the rollups.
CREATE TABLE rollup_watermark (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  last_sample_id INTEGER NOT NULL
);
INSERT INTO rollup_watermark (id, last_sample_id) VALUES (1, 0);
