-- Slow queries: one row per statement (engine query id / digest) per database.
CREATE TABLE queries (
  id TEXT PRIMARY KEY,
  database_id TEXT NOT NULL REFERENCES databases (id) ON DELETE CASCADE,
  fingerprint TEXT NOT NULL,
  query TEXT NOT NULL,
  first_seen_ts INTEGER NOT NULL,
  last_seen_ts INTEGER NOT NULL,
  UNIQUE (database_id, fingerprint)
);

-- Every stored snapshot that measured statements (even none ran): the boundaries of the intervals,
-- so each statement interval knows where it started.
CREATE TABLE statement_intervals (
  database_id TEXT NOT NULL REFERENCES databases (id) ON DELETE CASCADE,
  ts INTEGER NOT NULL,
  PRIMARY KEY (database_id, ts)
) WITHOUT ROWID;

-- What a statement did within one collection interval (interval_start_ts, ts]; deltas, never lifetime counters.
CREATE TABLE query_samples (
  database_id TEXT NOT NULL,
  ts INTEGER NOT NULL,
  query_id TEXT NOT NULL REFERENCES queries (id) ON DELETE CASCADE,
  interval_start_ts INTEGER,
  calls REAL NOT NULL,
  total_time_ms REAL NOT NULL,
  max_time_ms REAL,
  rows REAL NOT NULL,
  PRIMARY KEY (database_id, ts, query_id)
) WITHOUT ROWID;
CREATE INDEX query_samples_query ON query_samples (query_id, ts);

-- Off by default: an optimization requested with auto_apply is applied on its own only when this is 1.
ALTER TABLE organizations ADD COLUMN auto_apply_optimizations INTEGER NOT NULL DEFAULT 0;

CREATE TABLE optimizations (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  database_id TEXT NOT NULL REFERENCES databases (id) ON DELETE CASCADE,
  -- Not a foreign key: the record outlives the statement's retention.
  query_id TEXT,
  -- The requested optimization whose analysis produced this one (index hygiene, other statements).
  parent_id TEXT REFERENCES optimizations (id) ON DELETE CASCADE,
  kind TEXT CHECK (kind IN ('create_index', 'drop_index', 'setting', 'rewrite')),
  status TEXT NOT NULL CHECK (status IN ('pending', 'analyzing', 'ready', 'no_suggestion', 'applying', 'applied', 'failed', 'dismissed')),
  summary TEXT,
  statement TEXT,
  -- What the agent needs to apply it: {schema, table, index_name, columns}; the agent builds the SQL itself.
  target TEXT,
  estimated_improvement_pct REAL,
  cost_before REAL,
  cost_after REAL,
  cost_after_apply REAL,
  measured_mean_time_ms_before REAL,
  measured_mean_time_ms_after REAL,
  confidence TEXT CHECK (confidence IN ('high', 'medium', 'low')),
  evidence TEXT,
  auto_apply INTEGER NOT NULL,
  error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  applied_at TEXT,
  applied_ms INTEGER
);
CREATE INDEX optimizations_org_created ON optimizations (org_id, created_at, id);
CREATE INDEX optimizations_database ON optimizations (database_id, status);
CREATE INDEX optimizations_parent ON optimizations (parent_id);

-- Work for the agent that monitors the database: analysis of a requested optimization, or applying one.
CREATE TABLE optimization_jobs (
  id TEXT PRIMARY KEY,
  optimization_id TEXT NOT NULL REFERENCES optimizations (id) ON DELETE CASCADE,
  database_id TEXT NOT NULL REFERENCES databases (id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('analyze', 'apply')),
  payload TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'leased', 'done')),
  attempts INTEGER NOT NULL DEFAULT 0,
  -- The agent id, or 'embedded' for the server's embedded agent.
  leased_by TEXT,
  lease_expires_ms INTEGER,
  created_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE INDEX optimization_jobs_open ON optimization_jobs (state, database_id);
CREATE INDEX optimization_jobs_optimization ON optimization_jobs (optimization_id);
