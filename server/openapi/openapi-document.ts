import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { scopeDescriptions } from '../auth/oauth/oauth-scopes.js';
import { credentialKinds } from '../auth/principal.js';
import type { RouteDefinition } from '../http/route.js';
import type { EventPayloadSchema } from '../webhooks/event-payloads.js';
import { signedHeadersSchema } from '../webhooks/webhook-signature.js';

const rateLimitHeaders = {
  'X-RateLimit-Limit': {
    description: "Requests allowed in the current hour to the caller's principal (a user or service account, whatever key it uses) or, without a key, its client address",
    schema: { type: 'integer' as const },
  },
  'X-RateLimit-Remaining': { description: 'Requests left in the current hour to the same principal or client address', schema: { type: 'integer' as const } },
  'X-RateLimit-Reset': { description: 'Unix seconds when the window resets', schema: { type: 'integer' as const } },
  'X-Request-Id': { description: 'Identifies the request in the server log', schema: { type: 'string' as const } },
};

/**
 * Builds the OpenAPI 3.1 document from the very route definitions that validate requests, and its
 * `webhooks` (one per event type, named by it) from the schemas the events are published with.
 */
export function buildOpenApiDocument(routes: readonly RouteDefinition[], events: readonly EventPayloadSchema[], version: string) {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key: dbm_pat_... (personal) or dbm_sak_... (service account); or an OAuth access token, dbm_oat_... (see oauth2)',
  });
  const cookie = registry.registerComponent('securitySchemes', 'sessionCookie', {
    type: 'apiKey',
    in: 'cookie',
    name: 'dbmon_session',
    description:
      'A browser session (`__Host-dbmon_session` when server.public_url is https). Requests other than GET, HEAD and OPTIONS also need ' +
      'the header X-CSRF-Token with the csrf_token of GET /v1/user.',
  });
  const oauth2 = registry.registerComponent('securitySchemes', 'oauth2', {
    type: 'oauth2',
    description:
      'An OAuth 2.0 access token (dbm_oat_...) of an application acting for a user, sent as `Authorization: Bearer`: the user\'s role at request time, ' +
      'narrowed to the granted scopes. Authorization code flow with PKCE (S256); metadata at /.well-known/oauth-authorization-server.',
    flows: {
      authorizationCode: { authorizationUrl: '/oauth/authorize', tokenUrl: '/v1/oauth/token', refreshUrl: '/v1/oauth/token', scopes: scopeDescriptions },
    },
  });
  const securityOf = (route: RouteDefinition) => {
    if (route.auth === 'public') return [];
    const { scope } = route.auth;
    const accepted = route.auth.credentials ?? credentialKinds;
    return [
      ...(accepted.some((kind) => kind !== 'session') ? [{ [bearer.name]: [] }] : []),
      // No OAuth token ever holds the agent scope.
      ...(accepted.includes('oauth_token') && scope !== 'agent' ? [{ [oauth2.name]: scope === undefined ? [] : [scope] }] : []),
      ...(accepted.includes('session') ? [{ [cookie.name]: [] }] : []),
    ];
  };
  for (const route of routes) {
    registry.registerPath({
      method: route.method,
      path: route.path,
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description !== undefined && { description: route.description }),
      tags: [route.tag],
      security: securityOf(route),
      request: {
        ...(route.params && { params: route.params }),
        ...(route.query && { query: route.query }),
        ...(route.body && { body: { required: true, content: { 'application/json': { schema: route.body } } } }),
        ...(route.form && { body: { required: true, content: { 'application/x-www-form-urlencoded': { schema: route.form } } } }),
      },
      responses: Object.fromEntries(
        Object.entries(route.responses).map(([status, response]) => [
          status,
          {
            description: response.description,
            headers: rateLimitHeaders,
            ...(response.schema && { content: { [response.contentType ?? 'application/json']: { schema: response.schema } } }),
          },
        ]),
      ),
    });
  }
  for (const event of events) {
    registry.registerWebhook({
      method: 'post',
      path: event.type,
      operationId: `${event.type.replace(/[._](\w)/g, (_, letter: string) => letter.toUpperCase())}Event`,
      summary: event.summary,
      tags: ['Webhooks'],
      request: {
        headers: signedHeadersSchema,
        body: { required: true, content: { 'application/json': { schema: event.payload } } },
      },
      responses: {
        200: { description: 'Any 2xx within 15 s acknowledges the delivery; 410 Gone disables the endpoint; anything else is retried (see createWebhook)' },
      },
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'dbmon API',
      version,
      description:
        'Database monitoring API. Errors always use the Error body. Lists are paged with page/per_page and carry a Link header.',
    },
    servers: [{ url: '/' }],
  });
}
