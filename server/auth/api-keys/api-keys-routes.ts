import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { pageWindow, sendList } from '../../http/paging.js';
import { errorBody, errorResponses } from '../../openapi/error-responses.js';
import type { ApiKeysService } from './api-keys-service.js';
import { presentApiKey } from './api-key-presenter.js';
import { apiKeyCreateBody, apiKeyIdParams, apiKeyList, apiKeyListQuery, createdApiKey } from './api-keys-schema.js';

export function apiKeysRoutes(apiKeys: ApiKeysService, now: () => Date): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/api-keys',
      operationId: 'createApiKey',
      summary: 'Create an API key; the value is in the response this once only',
      tag: 'API keys',
      auth: { scope: 'api_keys', access: 'write' },
      body: apiKeyCreateBody,
      responses: { 201: { description: 'The key, with its value', schema: createdApiKey }, ...errorResponses },
      handler: (ctx, { body, principal }) => {
        const created = apiKeys.createFor(principal, body, now());
        ctx.status = 201;
        ctx.set('Location', `/v1/api-keys/${created.row.id}`);
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { ...presentApiKey(created.row), key: created.value };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/api-keys',
      operationId: 'listApiKeys',
      summary: "List API keys (owners, admins and service accounts see the organization's; others their own)",
      tag: 'API keys',
      auth: { scope: 'api_keys', access: 'read' },
      query: apiKeyListQuery,
      responses: { 200: { description: 'A page of keys', schema: apiKeyList }, ...errorResponses },
      handler: (ctx, { query, principal }) => {
        const window = pageWindow(query);
        const { rows, total } = apiKeys.list(principal, window.limit, window.offset);
        sendList(ctx, rows.map(presentApiKey), total, query);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/api-keys/{id}',
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key',
      tag: 'API keys',
      auth: { scope: 'api_keys', access: 'write' },
      params: apiKeyIdParams,
      responses: { 204: { description: 'Revoked' }, ...errorResponses, 409: { description: 'The key is revoked already (already_revoked)', schema: errorBody } },
      handler: (ctx, { params, principal }) => {
        apiKeys.revokeFor(principal, params.id, now());
        ctx.status = 204;
      },
    }),
  ];
}
