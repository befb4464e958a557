import { defineRoute, type RouteDefinition } from '../http/route.js';
import { sendSerializedList } from '../http/paging.js';
import { errorBody, errorResponses } from '../openapi/error-responses.js';
import { presentDatabase } from './database-presenter.js';
import type { DatabaseListPages } from './database-list-pages.js';
import type { DatabasesService } from './databases-service.js';
import {
  databaseCreateBody,
  databaseIdParams,
  databaseList,
  databaseListQuery,
  databaseRecord,
  databaseUpdateBody,
} from './databases-schema.js';

const tag = 'Databases';
const conflict = { 409: { description: 'The name is taken in this organization', schema: errorBody } };

export function databasesRoutes(databases: DatabasesService, pages: DatabaseListPages, now: () => Date): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/databases',
      operationId: 'listDatabases',
      summary: 'List monitored databases',
      tag,
      auth: { scope: 'databases', access: 'read' },
      query: databaseListQuery,
      responses: { 200: { description: 'A page of databases', schema: databaseList }, ...errorResponses },
      handler: (ctx, { query, principal }) => sendSerializedList(ctx, pages.page(principal.orgId, query, query), query),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/databases',
      operationId: 'createDatabase',
      summary: 'Register a database to monitor',
      tag,
      auth: { scope: 'databases', access: 'write' },
      body: databaseCreateBody,
      responses: { 201: { description: 'The new database', schema: databaseRecord }, ...errorResponses, ...conflict },
      handler: (ctx, { body, principal }) => {
        const row = databases.create(principal.orgId, body, now());
        ctx.status = 201;
        ctx.set('Location', `/v1/databases/${row.id}`);
        ctx.body = presentDatabase(row);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/databases/{id}',
      operationId: 'getDatabase',
      summary: 'Read a database',
      tag,
      auth: { scope: 'databases', access: 'read' },
      params: databaseIdParams,
      responses: { 200: { description: 'The database', schema: databaseRecord }, ...errorResponses },
      handler: (ctx, { params, principal }) => {
        ctx.body = presentDatabase(databases.get(principal.orgId, params.id));
      },
    }),
    defineRoute({
      method: 'put',
      path: '/v1/databases/{id}',
      operationId: 'updateDatabase',
      summary: 'Update a database; given fields are merged, a null password clears it',
      description:
        'A change of where or as whom the agent connects (`type`, `connection.host`, `port`, `database`, `username`, `ssl`, ' +
        'or `agent_id`) clears the stored password unless the same request gives `connection.password`: the answer then ' +
        'has `connection.password_set: false`. Such a change also marks every `ready` optimization of the database ' +
        '`dismissed` (its analysis was of the database reached before), fails those still pending, analyzing or applying, ' +
        'and refuses the result of a job leased before it (409 `connection_changed` to the agent).',
      tag,
      auth: { scope: 'databases', access: 'write' },
      params: databaseIdParams,
      body: databaseUpdateBody,
      responses: { 200: { description: 'The updated database', schema: databaseRecord }, ...errorResponses, ...conflict },
      handler: (ctx, { params, body, principal }) => {
        ctx.body = presentDatabase(databases.update(principal.orgId, params.id, body, now()));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/databases/{id}',
      operationId: 'deleteDatabase',
      summary: 'Remove a database with all its samples, queries, alerts and optimizations',
      tag,
      auth: { scope: 'databases', access: 'write' },
      params: databaseIdParams,
      responses: { 204: { description: 'Removed' }, ...errorResponses },
      handler: (ctx, { params, principal }) => {
        databases.delete(principal.orgId, params.id);
        ctx.status = 204;
      },
    }),
  ];
}
