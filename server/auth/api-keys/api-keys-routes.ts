import { requestClient } from '../../http/request-client.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { pageWindow, sendList } from '../../http/paging.js';
import { errorBody, errorResponses } from '../../openapi/error-responses.js';
import { credentialKinds } from '../principal.js';
import type { ApiKeysService } from './api-keys-service.js';
import { presentApiKey } from './api-key-presenter.js';
import { apiKeyCreateBody, apiKeyIdParams, apiKeyList, apiKeyListQuery, createdApiKey } from './api-keys-schema.js';

/** An OAuth access token makes no key: the key would outlive the authorization its user can withdraw. */
const keyMakers = credentialKinds.filter((kind) => kind !== 'oauth_token');

export function apiKeysRoutes(apiKeys: ApiKeysService, now: () => Date): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/api-keys',
      operationId: 'createApiKey',
      summary: 'Create an API key; the value is in the response this once only',
      description:
        'The calling key needs the `api_keys` scope, which no key gets by default. The new key is never broader than the calling key ' +
        '(permission, scopes, expiry: it inherits the expiry of its parent and may not outlive it) and records it as `parent_key_id`: ' +
        'revoking the parent, or its expiry, revokes the new key and every key made through it, transitively ' +
        '(authentication refuses a key whose parent or any ancestor is revoked or expired). ' +
        'Members make personal tokens for themselves; owners and admins also keys of any service account; ' +
        'a service-account key keys of its own service account only. An organization holds at most ' +
        '`api_keys.max_live_per_organization` (default 1,000) keys neither revoked nor expired; one more is refused with 409 `limit_reached`. ' +
        'An OAuth access token makes no key (403 `credential_not_accepted`): the key would outlive the authorization its user can withdraw.',
      tag: 'API keys',
      auth: { scope: 'api_keys', access: 'write', credentials: keyMakers },
      body: apiKeyCreateBody,
      responses: {
        201: { description: 'The key, with its value', schema: createdApiKey },
        ...errorResponses,
        409: { description: '`limit_reached`: the organization already holds its maximum of live keys', schema: errorBody },
      },
      handler: (ctx, { body, principal }) => {
        const created = apiKeys.createFor(principal, body, now(), requestClient(ctx));
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
      summary: "List API keys (owners and admins see the organization's; a service account its own; other users their own)",
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
      summary: 'Revoke an API key, and every key made through it',
      description:
        'Revokes the key and, transitively, every key made with it (their `parent_key_id` chain). Owners and admins revoke any key of ' +
        "the organization through their personal tokens; a service-account key only its own service account's keys; other users their own.",
      tag: 'API keys',
      auth: { scope: 'api_keys', access: 'write' },
      params: apiKeyIdParams,
      responses: { 204: { description: 'Revoked' }, ...errorResponses, 409: { description: 'The key is revoked already (already_revoked)', schema: errorBody } },
      handler: (ctx, { params, principal }) => {
        apiKeys.revokeFor(principal, params.id, now(), requestClient(ctx));
        ctx.status = 204;
      },
    }),
  ];
}
