import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import t from 'tap';
import { defineRoute, mountRoutes, type RouteDefinition } from '../../../server/http/route.js';
import { routesByPath } from '../../../server/http/routes-by-path.js';

function answering(method: RouteDefinition['method'], path: string, operationId: string): RouteDefinition {
  return defineRoute({
    method,
    path,
    operationId,
    summary: operationId,
    tag: 'Test',
    auth: 'public',
    responses: { 200: { description: 'which route answered' } },
    handler: (ctx) => {
      ctx.body = { route: operationId, params: ctx.params, matched: ctx._matchedRoute as unknown };
    },
  });
}

// Exact paths that patterns also match, registered before and after them, and methods on one path spread over several routes.
const routes = [
  answering('get', '/v1/things', 'listThings'),
  answering('post', '/v1/things', 'createThing'),
  answering('get', '/v1/things/{id}', 'getThing'),
  answering('get', '/v1/things/latest', 'latestThing'),
  answering('delete', '/v1/things/latest', 'forgetLatestThing'),
  answering('patch', '/v1/things/{id}', 'updateThing'),
  answering('put', '/v1/things/{id}/parts/{part}', 'putPart'),
  answering('get', '/v1/things/latest/parts', 'latestParts'),
  answering('post', '/v1/parts/{id}', 'createPart'),
  answering('get', '/v1/parts/all', 'allParts'),
  answering('get', '/v1/files/*rest', 'anyFile'),
];

const requests: [string, string][] = [];
for (const path of [
  '/v1/things',
  '/v1/things/',
  '/V1/things',
  '/v1/things/7',
  '/v1/things/latest',
  '/v1/things/Latest',
  '/v1/things/latest/',
  '/v1/things/latest/parts',
  '/v1/things/7/parts/3',
  '/v1/things/latest/parts/3',
  '/v1/parts/all',
  '/v1/parts/9',
  '/v1/nothing',
  '/v1/files/a/b',
  '/v1/files/*rest',
  '/',
]) {
  for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND']) requests.push([method, path]);
}

async function listen(app: Koa): Promise<{ port: number; server: Server }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { port: (server.address() as AddressInfo).port, server };
}

/** Status, Allow and body: what a client can tell about which route answered. */
function answer(port: number, method: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, method, path }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve(`${response.statusCode} allow=${response.headers.allow ?? '-'} ${body}`));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

t.test('routes looked up by path answer every request as one router of all the routes does', async (t) => {
  const oneRouter = new Router({ sensitive: true, strict: true });
  mountRoutes(oneRouter, routes);
  const reference = new Koa();
  reference.use(oneRouter.routes());
  reference.use(oneRouter.allowedMethods());
  const byPath = new Koa();
  byPath.use(routesByPath(routes));

  const expected = await listen(reference);
  t.teardown(() => expected.server.close());
  const actual = await listen(byPath);
  t.teardown(() => actual.server.close());

  for (const [method, path] of requests) {
    t.equal(await answer(actual.port, method, path), await answer(expected.port, method, path), `${method} ${path}`);
  }
  t.match(await answer(actual.port, 'GET', '/v1/things/latest'), /"route":"getThing"/, 'the pattern registered first answers, as in one router');
  t.match(await answer(actual.port, 'DELETE', '/v1/things/latest'), /"route":"forgetLatestThing"/);
  t.match(await answer(actual.port, 'PUT', '/v1/things/latest'), /^405 allow=HEAD, GET, DELETE, PATCH /, 'methods of both routes allowed');
});

