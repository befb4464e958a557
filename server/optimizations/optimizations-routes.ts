import { databaseIdParams } from '../databases/databases-schema.js';
import { pageWindow, sendList } from '../http/paging.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { errorBody, errorResponses } from '../openapi/error-responses.js';
import { presentOptimization } from './optimization-presenter.js';
import {
  optimizationIdParams,
  optimizationList,
  optimizationListQuery,
  optimizationRecord,
  optimizeBody,
} from './optimizations-schema.js';
import type { OptimizationsService } from './optimizations-service.js';

const tag = 'Optimizations';

export function optimizationsRoutes(optimizations: OptimizationsService, now: () => Date): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/databases/{id}/optimize',
      operationId: 'requestOptimization',
      summary: 'Request an optimization for a database, optionally for one statement; the agent that monitors it analyzes',
      description:
        'Statuses: pending, then analyzing once the agent takes the job, then ready, no_suggestion or failed. Without `query_id` ' +
        'the top 5 statements by total time of the last 24 h are analyzed and the suggestion saving the most time becomes this ' +
        "record; further suggestions (other statements, duplicate or unused indexes as drop_index) become records of their own " +
        'with `parent_id` set to this one. `auto_apply: true` is refused (403 auto_apply_not_allowed) unless the organization ' +
        'allows it; when allowed, a ready create_index suggestion starts applying on its own. An unknown `query_id` gives 404.',
      tag,
      auth: { scope: 'optimizations', access: 'write' },
      params: databaseIdParams,
      body: optimizeBody,
      responses: { 202: { description: 'Accepted: the record, status pending', schema: optimizationRecord }, ...errorResponses },
      handler: (ctx, { params, body, principal }) => {
        const row = optimizations.request(principal.orgId, params.id, body, now());
        ctx.status = 202;
        ctx.set('Location', `/v1/optimizations/${row.id}`);
        ctx.body = presentOptimization(row);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/optimizations',
      operationId: 'listOptimizations',
      summary: 'List optimizations, newest first',
      tag,
      auth: { scope: 'optimizations', access: 'read' },
      query: optimizationListQuery,
      responses: { 200: { description: 'A page of optimizations', schema: optimizationList }, ...errorResponses },
      handler: (ctx, { query, principal }) => {
        const window = pageWindow(query);
        const { rows, total } = optimizations.list(principal.orgId, query, window.limit, window.offset);
        sendList(ctx, rows.map(presentOptimization), total, query);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/optimizations/{id}',
      operationId: 'getOptimization',
      summary: 'Read an optimization',
      tag,
      auth: { scope: 'optimizations', access: 'read' },
      params: optimizationIdParams,
      responses: { 200: { description: 'The optimization', schema: optimizationRecord }, ...errorResponses },
      handler: (ctx, { params, principal }) => {
        ctx.body = presentOptimization(optimizations.get(principal.orgId, params.id));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/optimizations/{id}/apply',
      operationId: 'applyOptimization',
      summary: 'Apply a ready optimization on the agent that monitors the database, without blocking writes',
      description:
        'The agent takes an advisory lock, checks again that no equivalent index exists, and runs CREATE INDEX CONCURRENTLY ' +
        '(PostgreSQL; an invalid index left by a failed build is dropped) or ALTER TABLE ... ALGORITHM=INPLACE, LOCK=NONE ' +
        '(MySQL/MariaDB) with a lock timeout. Then applied (with cost_after_apply from a fresh plan, and the measured mean ' +
        'times once the statement ran again) or failed with the exact error.',
      tag,
      auth: { scope: 'optimizations', access: 'write' },
      params: optimizationIdParams,
      responses: {
        202: { description: 'Accepted: the record, status applying', schema: optimizationRecord },
        ...errorResponses,
        409: {
          description: 'Not ready: already_applied (applied or applying), not_ready, nothing_to_apply, optimization_failed, optimization_dismissed',
          schema: errorBody,
        },
      },
      handler: (ctx, { params, principal }) => {
        const row = optimizations.apply(principal.orgId, params.id, now());
        ctx.status = 202;
        ctx.body = presentOptimization(row);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/optimizations/{id}/dismiss',
      operationId: 'dismissOptimization',
      summary: 'Dismiss a ready optimization: it stays listed, with status dismissed, and can no longer be applied',
      description: 'The same statement is not suggested again for this database by later analyses.',
      tag,
      auth: { scope: 'optimizations', access: 'write' },
      params: optimizationIdParams,
      responses: {
        200: { description: 'The record, status dismissed', schema: optimizationRecord },
        ...errorResponses,
        409: { description: 'already_dismissed, or not_dismissable (only a ready optimization can be dismissed)', schema: errorBody },
      },
      handler: (ctx, { params, principal }) => {
        ctx.body = presentOptimization(optimizations.dismiss(principal.orgId, params.id, now()));
      },
    }),
  ];
}
