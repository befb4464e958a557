import type { MetricCatalog } from '../../common/metric-catalog.js';
import type { DatabasesService } from '../databases/databases-service.js';
import { databaseIdParams } from '../databases/databases-schema.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { errorResponses } from '../openapi/error-responses.js';
import { historyBody } from './history-presenter.js';
import { currentMetricsQuery, historyQuery, metricsHistory, metricsSnapshot } from './metrics-schema.js';
import type { MetricsService } from './metrics-service.js';

export function metricsRoutes(databases: DatabasesService, metrics: MetricsService, catalog: MetricCatalog, now: () => Date): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/databases/{id}/metrics',
      operationId: 'getCurrentMetrics',
      summary: 'Current metrics: gauges from the latest sample, rates and latencies over the range',
      tag: 'Metrics',
      auth: { scope: 'metrics', access: 'read' },
      params: databaseIdParams,
      query: currentMetricsQuery,
      responses: { 200: { description: 'The snapshot; values are null before the first sample', schema: metricsSnapshot(catalog) }, ...errorResponses },
      handler: (ctx, { params, query, principal }) => {
        ctx.body = metrics.current(databases.get(principal.orgId, params.id), query.range, now());
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/databases/{id}/metrics/history',
      operationId: 'getMetricsHistory',
      summary: 'Metric history at a resolution (raw, 1m, 5m, 1h, 1d or auto); rollups give avg, min and max',
      description:
        'Any span may be asked at any resolution: the bound is on the points that exist, not on the span. ' +
        'When more than 10000 points (samples or buckets) fall in the span, the answer is 400 invalid_parameter (param resolution): ask a coarser resolution or a shorter span.',
      tag: 'Metrics',
      auth: { scope: 'metrics', access: 'read' },
      params: databaseIdParams,
      query: historyQuery(catalog),
      responses: { 200: { description: 'The series', schema: metricsHistory }, ...errorResponses },
      handler: (ctx, { params, query, principal }) => {
        ctx.type = 'application/json';
        ctx.body = historyBody(metrics.history(databases.get(principal.orgId, params.id), query, now()));
      },
    }),
  ];
}
