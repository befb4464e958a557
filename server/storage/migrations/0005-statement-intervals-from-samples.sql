-- A statement interval starts at the previous reachable sample, which the samples table already holds.
DROP TABLE statement_intervals;
