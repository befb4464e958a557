import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import t from 'tap';
import { z } from 'zod';
import { errorHandler } from '../../../server/http/error-handler.js';
import { defineRoute } from '../../../server/http/route.js';
import { routesByPath } from '../../../server/http/routes-by-path.js';
import { captureLogger } from '../../helpers/capture-logger.js';

t.test('a parsed query kept by its query string answers as a fresh parse would', async (t) => {
  const route = defineRoute({
    method: 'get',
    path: '/v1/things',
    operationId: 'listThings',
    summary: 'things',
    tag: 'Test',
    auth: 'public',
    query: z.strictObject({ per_page: z.coerce.number().int().max(100).default(20), tags: z.string().array().optional() }),
    responses: { 200: { description: 'the query as the handler got it' } },
    handler: (ctx, { query }) => {
      ctx.body = structuredClone(query);
      // A handler that changes its input: the next request with the same query string must not see it.
      query.per_page = -1;
      query.tags?.push('changed');
    },
  });
  const app = new Koa();
  app.use(errorHandler(captureLogger().logger));
  app.use(routesByPath([route]));
  const server = app.listen(0, '127.0.0.1');
  t.teardown(() => server.close());
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const get = async (query: string) => {
    const response = await fetch(`${base}/v1/things${query}`);
    return { status: response.status, body: (await response.json()) as unknown };
  };

  for (let i = 0; i < 3; i++) {
    t.same(await get('?per_page=5'), { status: 200, body: { per_page: 5 } }, `the same query string, request ${i + 1}`);
    t.same(await get(''), { status: 200, body: { per_page: 20 } }, `no query string: the default, request ${i + 1}`);
    t.same(await get('?tags=a&tags=b'), { status: 200, body: { per_page: 20, tags: ['a', 'b'] } }, `a list value, request ${i + 1}`);
    const refused = await get('?per_page=500');
    t.equal(refused.status, 400, `a refused query is refused again, request ${i + 1}`);
  }
});
