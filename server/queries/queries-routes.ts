import type { DatabasesService } from '../databases/databases-service.js';
import { databaseIdParams } from '../databases/databases-schema.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { errorResponses } from '../openapi/error-responses.js';
import { presentQuery } from './query-presenter.js';
import { queriesQuery, queryList } from './queries-schema.js';
import type { QueriesService } from './queries-service.js';

export function queriesRoutes(databases: DatabasesService, queries: QueriesService, now: () => Date): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/databases/{id}/queries',
      operationId: 'listSlowQueries',
      summary: "The database's statements over the range (default 24h), by total time, mean time, calls or max time",
      description:
        'Statements come from pg_stat_statements (PostgreSQL) or performance_schema statement digests (MySQL/MariaDB), ' +
        "as per-interval deltas the agent computes, so every number is what happened within `range`, never a lifetime counter. " +
        "`id` is `query_` and 22 base62 characters of a SHA-256 of the database id and the engine's query id (digest): stable " +
        'across collections and restarts. Not paged: `limit` (1..100, default 20) returns the top statements by `sort`. ' +
        "The agent's own statements are left out, and on MySQL/MariaDB requests for a plan (EXPLAIN, DESCRIBE): they run " +
        'nothing of the workload. Kept as long as raw samples; after a few minutes as per-minute sums, so a range that ' +
        'starts within a minute counts that whole minute.',
      tag: 'Slow queries',
      auth: { scope: 'queries', access: 'read' },
      params: databaseIdParams,
      query: queriesQuery,
      responses: { 200: { description: 'The statements; numbers are deltas over the range', schema: queryList }, ...errorResponses },
      handler: (ctx, { params, query, principal }) => {
        const database = databases.get(principal.orgId, params.id);
        const rows = queries.top(database, query.range, query.sort, query.limit, now());
        ctx.body = { database_id: database.id, range: query.range.text, sort: query.sort, data: rows.map(presentQuery) };
      },
    }),
  ];
}
