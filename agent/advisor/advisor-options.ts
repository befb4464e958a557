export interface AdvisorOptions {
  /** A suggestion is kept only when it lowers the cost by at least this much. */
  minImprovementPct: number;
  /** Statement timeout of the analysis statements. */
  analysisTimeoutMs: number;
  /**
   * How long analysis (both engines) and MySQL/MariaDB's ALTER TABLE wait for a lock before giving
   * up: a waiting ALTER's metadata lock request holds up the application's statements on that table.
   */
  lockTimeoutMs: number;
  /**
   * lock_timeout of PostgreSQL's CREATE/DROP INDEX CONCURRENTLY. Its waits (for the lock, and for
   * older transactions to end) never block the application, so it may wait longer.
   */
  concurrentIndexLockTimeoutMs: number;
  /** Statement timeout of an index build; 0 for none. */
  applyTimeoutMs: number;
  connectTimeoutMs: number;
  /** auto: use hypopg if installed, else create it inside the analysis transaction (rolled back); installed: only if installed; never: heuristic only. */
  hypopg: 'auto' | 'installed' | 'never';
  /** Tables smaller than this are not worth an index suggestion from a heuristic. */
  minTableRows: number;
  /** Heuristic: a sequential scan keeping at most this fraction of the table's rows is selective. */
  maxSelectivity: number;
  /** Columns of one table tried as index candidates, at most. */
  maxColumnsPerTable: number;
  /** Report unused and duplicate indexes as drop_index suggestions. */
  indexHygiene: boolean;
  /** Index usage counters younger than this (statistics reset, server start) prove nothing: no unused-index suggestions. */
  unusedIndexMinStatsAgeMs: number;
  /** MySQL/MariaDB: rows read to estimate a column's distinct values. */
  mysqlSampleRows: number;
}

export const defaultAdvisorOptions: AdvisorOptions = {
  minImprovementPct: 50,
  analysisTimeoutMs: 10_000,
  lockTimeoutMs: 5_000,
  concurrentIndexLockTimeoutMs: 60_000,
  applyTimeoutMs: 6 * 3_600_000,
  connectTimeoutMs: 10_000,
  hypopg: 'auto',
  minTableRows: 10_000,
  maxSelectivity: 0.05,
  maxColumnsPerTable: 6,
  indexHygiene: true,
  unusedIndexMinStatsAgeMs: 7 * 86_400_000,
  mysqlSampleRows: 30_000,
};
