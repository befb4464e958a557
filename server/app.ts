import { eventPayloadSchemas } from './webhooks/event-payloads.js';
import Koa, { type Middleware } from 'koa';
import type { Logger } from 'pino';
import { healthRoutes } from './health/health-routes.js';
import type { CredentialResolver } from './auth/credentials/credential-resolver.js';
import { accessLog } from './http/access-log.js';
import { authenticate } from './http/authenticate.js';
import { clientAddress } from './http/client-address.js';
import { compressJson } from './http/compress-json.js';
import { errorHandler } from './http/error-handler.js';
import { jsonBody } from './http/json-body.js';
import { rateLimit } from './http/rate-limit.js';
import type { RateLimiter } from './http/rate-limiter.js';
import { requestId } from './http/request-id.js';
import type { RouteDefinition } from './http/route.js';
import { routesByPath } from './http/routes-by-path.js';
import { TrustedProxies } from './http/trusted-proxies.js';
import { underV1 } from './http/under-v1.js';
import { unmatched } from './http/unmatched.js';
import { metricsEndpointRoutes } from './metrics-endpoint/metrics-endpoint-routes.js';
import type { ServerMetrics } from './metrics-endpoint/server-metrics.js';
import { buildOpenApiDocument } from './openapi/openapi-document.js';
import { openApiRoutes } from './openapi/openapi-routes.js';
import type { Db } from './storage/open-database.js';

export interface AppDependencies {
  db: Db;
  logger: Logger;
  /** The credentials /v1 accepts, in the order they are looked for (auth/create-accounts.ts). */
  credentials: readonly CredentialResolver[];
  /** Every feature's API routes (compose-services.ts). */
  routes: readonly RouteDefinition[];
  /** The browser pages (server/ui/pages.ts): they answer their own paths and pass every other request on. */
  pages: Middleware;
  serverMetrics: ServerMetrics;
  rateLimiter: RateLimiter;
  now: () => Date;
  bodyLimitBytes: number;
  version: string;
  metricsToken?: string | undefined;
  /** `server.trusted_proxies`: the addresses and CIDR ranges whose X-Forwarded-For entries are believed. */
  trustedProxies?: readonly string[];
}

/** Builds the Koa application; it never listens, so tests drive `app.callback()` directly. */
export function createApp(deps: AppDependencies): Koa {
  const { now } = deps;
  // Koa's own proxy mode would believe X-Forwarded-For from anyone; clientAddress() sets ctx.ip instead.
  const app = new Koa({ proxy: false });
  const routes = [
    ...healthRoutes(deps.db),
    ...metricsEndpointRoutes(deps.serverMetrics, deps.metricsToken),
    ...deps.routes,
  ];

  app.use(clientAddress(new TrustedProxies(deps.trustedProxies ?? [])));
  app.use(requestId());
  app.use(accessLog(deps.logger, deps.serverMetrics));
  app.use(compressJson());
  app.use(errorHandler(deps.logger));
  app.use(deps.pages);
  app.use(onlyUnderV1(authenticate(deps.credentials, now)));
  const ownLimitPaths = new Set(routes.filter((route) => route.ownRateLimit).map((route) => route.path));
  app.use(onlyUnderV1(rateLimit(deps.rateLimiter, now, ownLimitPaths)));
  app.use(unmatched());
  const formPaths = new Set(routes.filter((route) => route.form !== undefined).map((route) => route.path));
  app.use(jsonBody(deps.bodyLimitBytes, formPaths));
  app.use(routesByPath([...routes, ...openApiRoutes((all) => buildOpenApiDocument(all, eventPayloadSchemas, deps.version), routes)]));
  return app;
}

function onlyUnderV1(middleware: Middleware): Middleware {
  return (ctx, next) => (underV1(ctx.path) ? middleware(ctx, next) : next());
}
