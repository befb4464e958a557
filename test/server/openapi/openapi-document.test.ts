import SwaggerParser from '@apidevtools/swagger-parser';
import type Router from '@koa/router';
import t from 'tap';
import { openApiResponseChecker } from '../../helpers/openapi-response-check.js';
import { createServiceKey, createTenant, startTestServer } from '../../helpers/test-server.js';

interface Operation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: Record<string, unknown> }>;
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
}

type Doc = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- schemas are arbitrary JSON
    securitySchemes: Record<string, { type: string; scheme: string; flows: { authorizationCode: { scopes: Record<string, string> } } }>;
  };
};

const methods = ['get', 'put', 'post', 'delete', 'patch'] as const;
/** Outside /v1 (health, Prometheus) no API key or rate limit applies; under /v1 only the document itself is public. */
const isPublic = (path: string) => !path.startsWith('/v1/') || path === '/v1/openapi.json';
const publicOperations = ['GET /healthz', 'GET /readyz', 'GET /v1/openapi.json'];
/** Public under /v1 but counted per client address: the OAuth token and revocation endpoints, which answer RFC 6749 errors. */
const oauthClientPaths = ['/v1/oauth/token', '/v1/oauth/revoke'];
const expectedOperations = [
  'GET /v1/databases',
  'POST /v1/databases',
  'GET /v1/databases/{id}',
  'PUT /v1/databases/{id}',
  'DELETE /v1/databases/{id}',
  'POST /v1/api-keys',
  'GET /v1/api-keys',
  'DELETE /v1/api-keys/{id}',
  ...publicOperations,
];
const contractErrorCodes = [
  'missing_required_parameter',
  'invalid_parameter',
  'unknown_parameter',
  'invalid_json',
  'unsupported_content_type',
  'body_too_large',
  'invalid_api_key',
  'expired_api_key',
  'revoked_api_key',
  'insufficient_permission',
  'ip_not_allowed',
  'resource_missing',
  'already_resolved',
  'already_applied',
  'rate_limited',
];
/** Codes the server answers with today beyond the contract's starting list. */
const servedErrorCodes = ['invalid_metrics_token', 'missing_api_key', 'malformed_api_key', 'method_not_allowed', 'already_exists', 'already_revoked', 'storage_unavailable'];

function operationsOf(doc: Doc): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    methods.filter((method) => item[method] !== undefined).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/** The routes the Koa router really serves, in the document's path form (`:id` to `{id}`), HEAD left out. */
function servedOperations(app: { middleware: unknown[] }): string[] {
  const router = app.middleware
    .map((middleware) => (middleware as { router?: Router }).router)
    .find((candidate) => candidate !== undefined);
  if (router === undefined) throw new Error('no router mounted');
  return router.stack.flatMap((layer) =>
    layer.methods
      .filter((method) => method !== 'HEAD')
      .map((method) => `${method} ${String(layer.path).replace(/:(\w+)/g, '{$1}')}`),
  );
}

t.test('the OpenAPI document', async (t) => {
  const server = await startTestServer();
  t.teardown(server.close);

  const response = await server.request('GET', '/v1/openapi.json');
  t.equal(response.status, 200, 'served without a key');
  t.match(response.headers.get('content-type'), /^application\/json/);
  t.ok(response.headers.get('x-ratelimit-limit'), 'rate-limit headers on public /v1 routes too');
  const doc = response.body as Doc;

  await t.test('is a valid OpenAPI 3.1 document', async (t) => {
    t.match(doc.openapi, /^3\.1\.\d+$/);
    t.equal(doc.info.version, 'test', 'carries the server version');
    const validated = await SwaggerParser.validate(structuredClone(doc) as never);
    t.ok(validated, 'swagger-parser accepts it');
    const again = await server.request('GET', '/v1/openapi.json');
    t.same(again.body, doc, 'the same document every time');
  });

  await t.test('documents every route the app serves, and nothing else', async (t) => {
    const documented = operationsOf(doc).sort();
    const served = servedOperations(server.app).sort();
    t.same(documented, served, 'the document and the router agree');
    for (const operation of expectedOperations) {
      t.ok(documented.includes(operation), `documents ${operation}`);
    }
    const ids = Object.values(doc.paths).flatMap((item) => methods.flatMap((method) => item[method]?.operationId ?? []));
    t.equal(new Set(ids).size, ids.length, 'operation ids are unique');
    t.equal(ids.length, documented.length, 'every operation has an id');

    for (const operation of documented) {
      const [method, path] = operation.split(' ') as [string, string];
      const concrete = path.replace(/\{id\}/g, 'db_doesnotexist0000000000');
      const probe = await server.request(method, concrete, method === 'GET' || method === 'DELETE' ? {} : { body: {} });
      t.not(probe.body?.error?.code, 'method_not_allowed', `${operation} is routed`);
      t.notMatch(probe.body?.error?.message ?? '', /^No route/, `${operation} is routed`);
    }
  });

  await t.test('paging parameters are documented as bounded integers with their defaults', async (t) => {
    const parameters = doc.paths['/v1/databases']!.get!.parameters ?? [];
    t.match(parameters.find((p) => p.name === 'per_page')?.schema, { type: 'integer', minimum: 1, maximum: 100, default: 20 });
    t.match(parameters.find((p) => p.name === 'page')?.schema, { type: 'integer', minimum: 1, default: 1 });
  });

  await t.test('every non-public operation declares bearer auth (and a session cookie but on /v1/agent/*) and its error responses', async (t) => {
    t.same(doc.components.securitySchemes.bearerAuth, { ...doc.components.securitySchemes.bearerAuth, type: 'http', scheme: 'bearer' });
    t.same(doc.components.securitySchemes.sessionCookie, { ...doc.components.securitySchemes.sessionCookie, type: 'apiKey', in: 'cookie', name: 'dbmon_session' });
    t.match(doc.components.securitySchemes.oauth2, { type: 'oauth2', flows: { authorizationCode: { authorizationUrl: '/oauth/authorize', tokenUrl: '/v1/oauth/token' } } });
    t.same(doc.paths['/v1/databases']!.get!.security, [{ bearerAuth: [] }, { oauth2: ['databases'] }, { sessionCookie: [] }], 'an OAuth token with the databases scope reads databases');
    t.same(doc.paths['/v1/user']!.get!.security, [{ bearerAuth: [] }, { sessionCookie: [] }], 'account endpoints take no OAuth token');
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of methods) {
        const operation = item[method];
        if (operation === undefined) continue;
        const name = `${method.toUpperCase()} ${path}`;
        if (oauthClientPaths.includes(path)) {
          t.same(operation.security ?? [], [], `${name} authenticates the client itself`);
          t.ok(operation.responses['429'], `${name} is rate limited per client and per client address`);
          t.equal(operation.responses['401']?.content?.['application/json']?.schema?.$ref, '#/components/schemas/OAuthError', `${name} 401 is an RFC 6749 error`);
          t.ok(operation.requestBody?.content['application/x-www-form-urlencoded'], `${name} takes a form`);
          continue;
        }
        if (isPublic(path)) {
          t.same(operation.security ?? [], [], `${name} needs no API key`);
          t.notOk(operation.responses['429'], `${name} is not rate limited, so documents no 429`);
          continue;
        }
        if (path.startsWith('/v1/agent/')) t.same(operation.security, [{ bearerAuth: [] }], `${name} needs a bearer key, never a session`);
        else {
          const [oauthScopes = []] = (operation.security ?? []).filter((requirement) => 'oauth2' in requirement).map((requirement) => requirement.oauth2!);
          t.same(operation.security?.filter((requirement) => !('oauth2' in requirement)), [{ bearerAuth: [] }, { sessionCookie: [] }], `${name} needs a bearer key or a session`);
          t.ok(oauthScopes.every((scope) => scope in doc.components.securitySchemes.oauth2!.flows.authorizationCode.scopes), `${name} names OAuth scopes the scheme lists`);
        }
        for (const status of ['401', '403', '429']) {
          t.ok(operation.responses[status], `${name} documents ${status}`);
          t.equal(operation.responses[status]?.content?.['application/json']?.schema?.$ref, '#/components/schemas/Error', `${name} ${status} uses the Error body`);
        }
        const success = Object.keys(operation.responses).filter((status) => status.startsWith('2'));
        t.equal(success.length, 1, `${name} has one success response`);
        if (path.includes('{id}')) {
          t.ok(operation.responses['404'], `${name} documents 404`);
          t.ok(
            operation.parameters?.some((parameter) => parameter.in === 'path' && parameter.name === 'id' && parameter.required === true),
            `${name} documents the id path parameter`,
          );
        }
        if (method === 'post' || method === 'put') t.ok(operation.responses['400'], `${name} documents 400`);
      }
    }
  });

  await t.test('the schemas match what the server answers', async (t) => {
    const errorProperties = doc.components.schemas.Error.properties.error;
    t.same([...errorProperties.required].sort(), ['message', 'type']);
    t.same([...errorProperties.properties.type.enum].sort(), [
      'api_error',
      'authentication_error',
      'conflict',
      'invalid_request',
      'not_found',
      'permission_error',
      'rate_limit_exceeded',
    ]);
    const codes: string[] = errorProperties.properties.code.enum;
    for (const code of [...contractErrorCodes, ...servedErrorCodes]) t.ok(codes.includes(code), `the Error schema lists ${code}`);

    const list = doc.paths['/v1/databases']!.get!;
    const query = (list.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name).sort();
    t.same(query, ['page', 'per_page', 'status', 'type'], 'list parameters are documented');
    t.equal(doc.paths['/v1/databases']!.post!.requestBody?.content['application/json']?.schema.$ref, '#/components/schemas/DatabaseCreate');
    t.equal(doc.paths['/v1/databases/{id}']!.put!.requestBody?.content['application/json']?.schema.$ref, '#/components/schemas/DatabaseUpdate');
    const create = doc.components.schemas.DatabaseCreate;
    t.same([...create.required].sort(), ['connection', 'name', 'type']);
    t.same([...create.properties.connection.required].sort(), ['database', 'host', 'username']);
    t.equal(create.additionalProperties, false, 'unknown fields are documented as refused');
    t.equal(create.properties.monitoring.properties.interval_seconds.minimum, 10);
    t.equal(create.properties.monitoring.properties.interval_seconds.maximum, 3600);
    t.notOk('password' in doc.components.schemas.Database.properties.connection.properties, 'records document no password');
    t.ok('password_set' in doc.components.schemas.Database.properties.connection.properties);

    const tenantKey = createTenant(server.services, server.clock.now).key;
    const created = await server.request('POST', '/v1/databases', {
      key: tenantKey,
      body: { name: 'shape', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' } },
    });
    const recordKeys = Object.keys(doc.components.schemas.Database.properties).sort();
    t.same(Object.keys(created.body).sort(), recordKeys, 'a served record has exactly the documented fields');
    t.same(Object.keys(created.body.connection).sort(), Object.keys(doc.components.schemas.Database.properties.connection.properties).sort());
  });

  await t.test('every response through the test helper is checked against the served document', async (t) => {
    const check = await openApiResponseChecker(server.url);
    const json = new Headers({ 'content-type': 'application/json; charset=utf-8' });
    const health = (await server.request('GET', '/healthz')).body;
    t.doesNotThrow(() => check('GET', '/healthz', { status: 200, headers: json, body: health }), 'what the server answered passes');
    t.throws(() => check('GET', '/healthz', { status: 418, headers: json, body: health }), { name: 'OpenApiMismatchError' }, 'an unlisted status fails');
    t.throws(() => check('GET', '/healthz', { status: 200, headers: new Headers({ 'content-type': 'text/html' }), body: '<p>ok</p>' }), { name: 'OpenApiMismatchError' }, 'another content type fails');
    t.throws(
      () => check('GET', '/v1/databases/db_x', { status: 404, headers: json, body: { error: { type: 'lost', message: 'no' } } }),
      { name: 'OpenApiMismatchError' },
      'a body off its schema fails',
    );
    t.doesNotThrow(() => check('GET', '/v1/no-such-route', { status: 404, headers: json, body: {} }), 'a path without an operation is not checked');
  });

  await t.test('GET /metrics is documented as the text exposition format it answers', async (t) => {
    const scraped = await server.request('GET', '/metrics');
    t.equal(scraped.status, 200);
    t.match(scraped.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
    t.ok(doc.paths['/metrics']!.get!.responses['200']!.content?.['text/plain; version=0.0.4'], 'the document says text/plain; version=0.0.4');
  });

  await t.test('DELETE /v1/api-keys/{id} documents its 409 already_revoked', async (t) => {
    const tenant = createTenant(server.services, server.clock.now);
    const keyManager = createServiceKey(server.services, tenant.orgId, server.clock.now, { scopes: ['api_keys'] });
    const spare = await server.request('POST', '/v1/api-keys', { key: keyManager, body: { name: 'spare', permission: 'read' } });
    t.equal(spare.status, 201, spare.text);
    t.equal((await server.request('DELETE', `/v1/api-keys/${spare.body.id}`, { key: keyManager })).status, 204);
    const again = await server.request('DELETE', `/v1/api-keys/${spare.body.id}`, { key: keyManager });
    t.equal(again.status, 409);
    t.equal(again.body.error.code, 'already_revoked');
  });
});
