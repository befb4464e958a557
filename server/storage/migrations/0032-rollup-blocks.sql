-- Sealed rollup spans: one row holds a closed span of one resolution of one database (1m: an
-- hour, 5m: a day) as a block (server/metrics/blocks/rollup-block.ts), in place of its
-- `sample_rollups` rows. A span is either rows or one block, never both. The rows of existing
-- installations are sealed in slices after start-up by the rollup seal job. A rowid table: a block
-- of a few kilobytes would overflow the small local payload of a WITHOUT ROWID row.
CREATE TABLE rollup_blocks (
  database_id TEXT NOT NULL REFERENCES databases (id) ON DELETE CASCADE,
  resolution TEXT NOT NULL CHECK (resolution IN ('1m', '5m')),
  span_start INTEGER NOT NULL,
  block BLOB NOT NULL,
  PRIMARY KEY (database_id, resolution, span_start)
);
