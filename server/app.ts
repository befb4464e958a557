import Koa, { type Middleware } from 'koa';
import Router from '@koa/router';
import type { Logger } from 'pino';
import { agentsRoutes } from './agents/agents-routes.js';
import { alertsRoutes } from './alerts/alerts-routes.js';
import { accountsRoutes, credentialResolvers } from './auth/accounts.js';
import { apiKeysRoutes } from './auth/api-keys/api-keys-routes.js';
import { SessionCookie } from './auth/sessions/session-cookie.js';
import { databasesRoutes } from './databases/databases-routes.js';
import { healthRoutes } from './health/health-routes.js';
import { accessLog } from './http/access-log.js';
import { authenticate } from './http/authenticate.js';
import { clientAddress } from './http/client-address.js';
import { errorHandler } from './http/error-handler.js';
import { jsonBody } from './http/json-body.js';
import { rateLimit } from './http/rate-limit.js';
import type { RateLimiter } from './http/rate-limiter.js';
import { requestId } from './http/request-id.js';
import { mountRoutes } from './http/route.js';
import { TrustedProxies } from './http/trusted-proxies.js';
import { underV1 } from './http/under-v1.js';
import { unmatched } from './http/unmatched.js';
import { metricsEndpointRoutes } from './metrics-endpoint/metrics-endpoint-routes.js';
import type { ServerMetrics } from './metrics-endpoint/server-metrics.js';
import { metricsRoutes } from './metrics/metrics-routes.js';
import { buildOpenApiDocument } from './openapi/openapi-document.js';
import { openApiRoutes } from './openapi/openapi-routes.js';
import { optimizationJobsRoutes } from './optimizations/optimization-jobs-routes.js';
import { optimizationsRoutes } from './optimizations/optimizations-routes.js';
import { queriesRoutes } from './queries/queries-routes.js';
import type { Services } from './services.js';
import type { Db } from './storage/open-database.js';
import { pages } from './ui/pages.js';
import { webhooksRoutes } from './webhooks/webhooks-routes.js';

export interface AppDependencies {
  db: Db;
  logger: Logger;
  services: Services;
  serverMetrics: ServerMetrics;
  rateLimiter: RateLimiter;
  now: () => Date;
  bodyLimitBytes: number;
  version: string;
  metricsToken?: string | undefined;
  /** `server.trusted_proxies`: the addresses and CIDR ranges whose X-Forwarded-For entries are believed. */
  trustedProxies?: readonly string[];
  /** `server.public_url`: https makes the session cookie Secure and `__Host-` prefixed. */
  publicUrl?: string;
}

/** Builds the Koa application; it never listens, so tests drive `app.callback()` directly. */
export function createApp(deps: AppDependencies): Koa {
  const { services, now } = deps;
  // Koa's own proxy mode would believe X-Forwarded-For from anyone; clientAddress() sets ctx.ip instead.
  const app = new Koa({ proxy: false });
  const publicUrl = deps.publicUrl ?? 'http://localhost';
  const sessionCookie = new SessionCookie(publicUrl);
  const routes = [
    ...healthRoutes(deps.db),
    ...metricsEndpointRoutes(deps.serverMetrics, deps.metricsToken),
    ...apiKeysRoutes(services.apiKeys, now),
    ...accountsRoutes(services.accounts, sessionCookie, now),
    ...databasesRoutes(services.databases, services.databaseListPages, now),
    ...metricsRoutes(services.databases, services.metrics, services.catalog, now),
    ...agentsRoutes(services.agents, services.ingest, deps.serverMetrics, services.catalog, now),
    ...alertsRoutes(services.alertRules, services.alerts, now),
    ...webhooksRoutes(services.webhooks, now),
    ...queriesRoutes(services.databases, services.queries, now),
    ...optimizationsRoutes(services.optimizations, now),
    ...optimizationJobsRoutes(services.agents, services.optimizationJobs, now),
  ];
  // Exact paths only: a route that also answered /V1/... or /v1/x/ would be reached around the /v1 middleware.
  const router = new Router({ sensitive: true, strict: true });
  mountRoutes(router, [...routes, ...openApiRoutes((all) => buildOpenApiDocument(all, deps.version), routes)]);

  app.use(clientAddress(new TrustedProxies(deps.trustedProxies ?? [])));
  app.use(requestId());
  app.use(accessLog(deps.logger, deps.serverMetrics));
  app.use(errorHandler(deps.logger));
  app.use(pages({ accounts: services.accounts, sessionCookie, publicUrl, logger: deps.logger, now }));
  app.use(onlyUnderV1(authenticate(credentialResolvers(services.apiKeys, services.accounts, sessionCookie), now)));
  app.use(onlyUnderV1(rateLimit(deps.rateLimiter, now)));
  app.use(unmatched());
  for (const middleware of jsonBody(deps.bodyLimitBytes)) app.use(middleware);
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

function onlyUnderV1(middleware: Middleware): Middleware {
  return (ctx, next) => (underV1(ctx.path) ? middleware(ctx, next) : next());
}
