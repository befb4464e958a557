-- Slow queries, compact (#14): statements get an integer key; an hour of a database's statement
-- intervals is kept as one row of per-minute sums (queries/statement-hour-codec.ts), and only the
-- last minutes, not yet folded into their hour, as one row per statement interval.
CREATE TABLE statements (
  key INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  database_id TEXT NOT NULL REFERENCES databases (id) ON DELETE CASCADE,
  fingerprint TEXT NOT NULL,
  query TEXT NOT NULL,
  first_seen_ts INTEGER NOT NULL,
  -- Moved forward at most once an hour: it only decides when an unused statement expires.
  last_seen_ts INTEGER NOT NULL,
  UNIQUE (database_id, fingerprint)
);
INSERT INTO statements (id, database_id, fingerprint, query, first_seen_ts, last_seen_ts)
  SELECT id, database_id, fingerprint, query, first_seen_ts, last_seen_ts FROM queries ORDER BY database_id, first_seen_ts, id;

-- What a statement did within one collection interval (interval_start_ts, ts], until the hour job folds it.
CREATE TABLE statement_intervals (
  database_id TEXT NOT NULL REFERENCES databases (id) ON DELETE CASCADE,
  ts INTEGER NOT NULL,
  statement_key INTEGER NOT NULL,
  interval_start_ts INTEGER,
  calls REAL NOT NULL,
  total_time_ms REAL NOT NULL,
  max_time_ms REAL,
  rows REAL NOT NULL,
  PRIMARY KEY (database_id, ts, statement_key)
) WITHOUT ROWID;
-- What is there today goes to the open intervals: the job folds it into hours in slices, after start-up.
INSERT INTO statement_intervals (database_id, ts, statement_key, interval_start_ts, calls, total_time_ms, max_time_ms, rows)
  SELECT s.database_id, s.ts, q.key, s.interval_start_ts, s.calls, s.total_time_ms, s.max_time_ms, s.rows
    FROM query_samples s JOIN statements q ON q.id = s.query_id;

-- An hour (its start, ms) of a database's statement minutes, encoded.
CREATE TABLE statement_hours (
  database_id TEXT NOT NULL REFERENCES databases (id) ON DELETE CASCADE,
  hour INTEGER NOT NULL,
  minutes BLOB NOT NULL,
  PRIMARY KEY (database_id, hour)
) WITHOUT ROWID;

DROP INDEX query_samples_query;
DROP TABLE query_samples;
DROP TABLE queries;
