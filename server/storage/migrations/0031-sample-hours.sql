-- A sealed database-hour of raw samples (hour: its start, ms): the rows it had in `samples`, as one
-- encoded block (server/metrics/blocks/hour-block.ts). An hour is either rows or a block, never
-- both. A rowid table: the blocks are kilobytes, which SQLite keeps better out of a WITHOUT ROWID key.
-- The rows stored before are sealed by the seal job in slices after start-up.
CREATE TABLE sample_hours (
  database_id TEXT NOT NULL REFERENCES databases (id) ON DELETE CASCADE,
  hour INTEGER NOT NULL,
  block BLOB NOT NULL,
  UNIQUE (database_id, hour)
);
