import Koa, { type Middleware } from 'koa';
import Router from '@koa/router';
import type { Logger } from 'pino';
import { apiKeysRoutes } from './auth/api-keys/api-keys-routes.js';
import type { ApiKeysService } from './auth/api-keys/api-keys-service.js';
import { databasesRoutes } from './databases/databases-routes.js';
import type { DatabasesService } from './databases/databases-service.js';
import { healthRoutes } from './health/health-routes.js';
import { accessLog } from './http/access-log.js';
import { authenticate } from './http/authenticate.js';
import { errorHandler } from './http/error-handler.js';
import { jsonBody } from './http/json-body.js';
import { rateLimit } from './http/rate-limit.js';
import type { RateLimiter } from './http/rate-limiter.js';
import { requestId } from './http/request-id.js';
import { mountRoutes } from './http/route.js';
import { unmatched } from './http/unmatched.js';
import { buildOpenApiDocument } from './openapi/openapi-document.js';
import { openApiRoutes } from './openapi/openapi-routes.js';
import type { Db } from './storage/open-database.js';

export interface AppDependencies {
  db: Db;
  logger: Logger;
  apiKeys: ApiKeysService;
  databases: DatabasesService;
  rateLimiter: RateLimiter;
  now: () => Date;
  bodyLimitBytes: number;
  version: string;
  /** Honour X-Forwarded-For for client addresses (behind a reverse proxy only). */
  proxy?: boolean;
}

/** Builds the Koa application; it never listens, so tests drive `app.callback()` directly. */
export function createApp(deps: AppDependencies): Koa {
  const app = new Koa({ proxy: deps.proxy ?? false });
  const routes = [
    ...healthRoutes(deps.db),
    ...apiKeysRoutes(deps.apiKeys, deps.now),
    ...databasesRoutes(deps.databases, deps.now),
  ];
  const router = new Router();
  mountRoutes(router, [...routes, ...openApiRoutes((all) => buildOpenApiDocument(all, deps.version), routes)]);

  app.use(requestId());
  app.use(accessLog(deps.logger));
  app.use(errorHandler(deps.logger));
  app.use(onlyUnderV1(authenticate(deps.apiKeys, deps.now)));
  app.use(onlyUnderV1(rateLimit(deps.rateLimiter, deps.now)));
  app.use(unmatched());
  for (const middleware of jsonBody(deps.bodyLimitBytes)) app.use(middleware);
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

function onlyUnderV1(middleware: Middleware): Middleware {
  return (ctx, next) => (ctx.path === '/v1' || ctx.path.startsWith('/v1/') ? middleware(ctx, next) : next());
}
