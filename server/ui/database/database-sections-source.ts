import type { AlertRulesService } from '../../alerts/alert-rules-service.js';
import { presentAlertRule } from '../../alerts/alert-presenter.js';
import { presentDatabase } from '../../databases/database-presenter.js';
import type { DatabasesService } from '../../databases/databases-service.js';
import type { Range } from '../../metrics/metrics-schema.js';
import { presentOptimization } from '../../optimizations/optimization-presenter.js';
import type { OptimizationsService } from '../../optimizations/optimizations-service.js';
import { presentQuery } from '../../queries/query-presenter.js';
import type { QueriesService } from '../../queries/queries-service.js';

export type DatabaseRecord = ReturnType<typeof presentDatabase>;
export type SlowQuery = ReturnType<typeof presentQuery>;
export type Optimization = ReturnType<typeof presentOptimization>;
export type AlertRule = ReturnType<typeof presentAlertRule>;
export type SlowQuerySort = 'total_time' | 'mean_time' | 'calls' | 'max_time';

/** One slice of a statement's history: what it did between `from` and `to` (null: it did not run then). */
export interface QueryBucket {
  from: Date;
  to: Date;
  calls: number | null;
  meanTimeMs: number | null;
}

/** The optimizations a page lists: the newest of a database (the API pages the rest). */
export const optimizationsShown = 20;
const rulesShown = 100;

/**
 * What the database page reads, as the /v1 API presents it, always within the viewer's organization
 * (another organization's database is a NotFoundError).
 */
export interface DatabaseSectionsSource {
  database(orgId: string, id: string): DatabaseRecord;
  slowQueries(orgId: string, databaseId: string, range: Range, sort: SlowQuerySort, now: Date): SlowQuery[];
  /** One statement over the range, cut into `buckets` equal slices; undefined when the database never ran it. */
  slowQuery(orgId: string, databaseId: string, queryId: string, range: Range, buckets: number, now: Date): { totals: SlowQuery | undefined; text: string; history: QueryBucket[] } | undefined;
  optimizations(orgId: string, databaseId: string): Optimization[];
  /** The rules that watch this database: its own and the organization-wide ones. */
  rules(orgId: string, databaseId: string): AlertRule[];
}

export function databaseSectionsSource(services: {
  databases: DatabasesService;
  queries: QueriesService;
  optimizations: OptimizationsService;
  alertRules: AlertRulesService;
}): DatabaseSectionsSource {
  const { databases, queries, optimizations, alertRules } = services;
  return {
    database: (orgId, id) => presentDatabase(databases.get(orgId, id)),
    slowQueries: (orgId, databaseId, range, sort, now) => queries.top(databases.get(orgId, databaseId), range, sort, 50, now).map(presentQuery),
    slowQuery: (orgId, databaseId, queryId, range, buckets, now) => {
      const database = databases.get(orgId, databaseId);
      const row = queries.find(database.id, queryId);
      if (row === undefined) return undefined;
      const toMs = now.getTime();
      const fromMs = toMs - range.ms;
      const totals = queries.totals(database.id, queryId, fromMs, toMs);
      const step = range.ms / buckets;
      const history = Array.from({ length: buckets }, (_, index) => {
        const from = fromMs + index * step;
        const slice = queries.totals(database.id, queryId, from, from + step);
        return { from: new Date(from), to: new Date(from + step), calls: slice?.calls ?? null, meanTimeMs: slice?.mean_time_ms ?? null };
      });
      return { totals: totals === undefined ? undefined : presentQuery(totals), text: row.query, history };
    },
    optimizations: (orgId, databaseId) => optimizations.list(orgId, { database_id: databaseId }, optimizationsShown, 0).rows.map(presentOptimization),
    rules: (orgId, databaseId) =>
      alertRules
        .list(orgId, undefined, rulesShown, 0)
        .rows.map(presentAlertRule)
        .filter((rule) => rule.database_id === null || rule.database_id === databaseId),
  };
}
