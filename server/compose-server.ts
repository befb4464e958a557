import { startEmbeddedAgent, type EmbeddedAgentOptions } from './agents/embedded-agent.js';
import { createApp, type AppDependencies } from './app.js';
import { composeServices, type CompositionOptions } from './compose-services.js';
import { RateLimiter } from './http/rate-limiter.js';
import { ServerMetrics } from './metrics-endpoint/server-metrics.js';
import type { Db } from './storage/open-database.js';
import type { WebhookDispatcherOptions } from './webhooks/webhook-dispatcher.js';
import { pages } from './ui/pages.js';
import { databaseSectionsSource } from './ui/database/database-sections-source.js';

/** The features' options and the app's settings (server.body_limit_bytes, metrics.token, server.trusted_proxies). */
export interface ServerOptions
  extends CompositionOptions,
    Pick<AppDependencies, 'logger' | 'now' | 'bodyLimitBytes' | 'version' | 'metricsToken' | 'trustedProxies'> {}

/** What the embedded agent gets from the server; the rest (spool, logger, clock) is the caller's. */
export type EmbeddedAgentRun = Omit<EmbeddedAgentOptions, 'ingest' | 'counter' | 'spoolGauge' | 'catalog' | 'agents' | 'jobs'>;

/**
 * The server over one open state database: its features (compose-services.ts), the /metrics
 * registry and the Koa application, plus what runs beside them, made but not started (the webhook
 * dispatcher, the embedded agent). main.ts and the test server both start from here.
 */
export function composeServer(db: Db, secretKey: Buffer, options: ServerOptions) {
  const { services, catalog, credentials, pageSessions, scrapeSources, routes, turns, backgroundJobs, webhookDispatcher } = composeServices(db, secretKey, options);
  const { logger, now } = options;
  const serverMetrics = new ServerMetrics({ ...scrapeSources, now }, catalog);
  const app = createApp({
    db,
    logger,
    credentials,
    pages: pages({
      accounts: services.accounts,
      oauth: services.oauth,
      saml: services.saml,
      providers: services.providers,
      sessionCookie: pageSessions.cookie,
      credentials: pageSessions.credentials,
      publicUrl: options.publicUrl ?? 'http://localhost',
      databases: databaseSectionsSource(services),
      logger,
      now,
    }),
    routes: routes(serverMetrics, now),
    serverMetrics,
    metricsToken: options.metricsToken,
    rateLimiter: new RateLimiter(),
    now,
    bodyLimitBytes: options.bodyLimitBytes,
    version: options.version,
    ...(options.trustedProxies && { trustedProxies: options.trustedProxies }),
  });
  return {
    services,
    serverMetrics,
    app,
    turns,
    backgroundJobs,
    /** A webhook dispatcher over the outbox, counted on /metrics (not started). */
    webhookDispatcher: (dispatcherOptions: Omit<WebhookDispatcherOptions, 'deliveries' | 'guard' | 'observer'>) =>
      webhookDispatcher({ ...dispatcherOptions, observer: serverMetrics }),
    startEmbeddedAgent: (run: EmbeddedAgentRun) =>
      startEmbeddedAgent({
        ingest: services.ingest,
        counter: serverMetrics,
        spoolGauge: serverMetrics,
        catalog,
        agents: services.agents,
        jobs: services.optimizationJobs,
        ...run,
      }),
  };
}
