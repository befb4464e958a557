import { metricCatalog, type MetricCatalog } from '../common/metric-catalog.js';
import { SecretBox } from '../common/secret-box.js';
import { createAgents } from './agents/create-agents.js';
import { AlertEvaluationJob } from './alerts/alert-evaluation-job.js';
import { createAlerts } from './alerts/create-alerts.js';
import { createApiKeys } from './auth/api-keys/create-api-keys.js';
import { createAudit } from './auth/audit/create-audit.js';
import type { CityResponse, Reader } from 'maxmind';
import { createAccounts } from './auth/create-accounts.js';
import { sessionLocator } from './auth/sessions/session-location.js';
import { createIdentity } from './auth/identity/create-identity.js';
import { createOAuth } from './auth/oauth/create-oauth.js';
import { createSaml } from './auth/saml/create-saml.js';
import { createProviders } from './auth/providers/create-providers.js';
import { publicProviderEndpoints, type ProviderEndpoints } from './auth/providers/provider-endpoints.js';
import { createDatabases } from './databases/create-databases.js';
import type { RouteDefinition } from './http/route.js';
import type { ScrapeSources } from './metrics-endpoint/server-metrics.js';
import { createMetrics } from './metrics/create-metrics.js';
import type { IngestCounter } from './metrics/ingest-routes.js';
import { defaultRetention, type RetentionMs } from './metrics/retention.js';
import { createOptimizations } from './optimizations/create-optimizations.js';
import { createQueries } from './queries/create-queries.js';
import { TableGenerations } from './storage/generation-cache.js';
import { storageFileSizes } from './storage/storage-file-sizes.js';
import type { Mailer } from './mail/mailer.js';
import type { SmsSender } from './sms/sms-sender.js';
import { LoopTurns } from './jobs/loop-turns.js';
import { unsynced, walSync, type Db, type Transaction } from './storage/open-database.js';
import type { RetryPolicy } from './webhooks/retry-schedule.js';
import { createWebhooks } from './webhooks/create-webhooks.js';

export interface CompositionOptions {
  /** Config retention.*. */
  retention?: RetentionMs;
  /** Config webhooks.allow_private_targets. */
  allowPrivateWebhookTargets?: boolean;
  webhookRetryPolicy?: RetryPolicy;
  /** When the server started: alert evaluation does not count silence from before it as unreachability. */
  startedAt?: Date;
  /** Config api_keys.max_live_per_organization. */
  maxLiveApiKeysPerOrganization?: number;
  /** The metric catalog; a test may pass a fixture. */
  catalog?: MetricCatalog;
  /** Config server.public_url (the origin of absolute links; https makes the session cookie Secure). */
  publicUrl?: string;
  /** Outgoing mail, when email.smtp_url is configured. */
  mailer?: Mailer;
  /** The sender of SMS codes, when sms.sender is configured. */
  smsSender?: SmsSender;
  /** Config geoip.database, opened: where sessions are. */
  geoip?: Reader<CityResponse>;
  /** Where GitHub, Google and Microsoft are (default: the public services); tests point them at local fakes. */
  providerEndpoints?: ProviderEndpoints;
  /** About how much work each ingest transaction does (default 10 ms); a test passes 0: one sample per slice. */
  ingestSliceBudgetMs?: number;
}

/** The services the entry points use (main.ts, the operator CLI, tests): features never import this record. */
export type ServerServices = ReturnType<typeof composeServices>['services'];

/**
 * The features over one open state database, each made by its own createX from what it needs; the
 * one place they are wired to each other. Used by the server (compose-server.ts), the operator CLI
 * and tests. Features reach each other only through the services and ports passed here.
 */
export function composeServices(db: Db, secretKey: Buffer, options: CompositionOptions = {}) {
  const catalog = options.catalog ?? metricCatalog;
  const retention = options.retention ?? defaultRetention;
  const generations = new TableGenerations(db);
  const turns = new LoopTurns();
  const transaction: Transaction = (work) => {
    try {
      return db.transaction(work)();
    } catch (error) {
      // What a rolled-back transaction wrote is gone: so is what caches learnt of it.
      queries.queries.rolledBack();
      generations.rolledBack();
      throw error;
    }
  };
  const secretBox = new SecretBox(secretKey);

  const webhooks = createWebhooks({
    db,
    secretBox,
    allowPrivateTargets: options.allowPrivateWebhookTargets ?? false,
    retryPolicy: options.webhookRetryPolicy,
    transaction,
  });
  const queries = createQueries({
    db,
    retentionMs: retention.raw,
    databases: { ids: () => databases.databases.ids() },
    // Created below: the samples are read only once requests and jobs run.
    samples: { lastReachedBefore: (databaseId, beforeMs) => metrics.samples.lastReachedBefore(databaseId, beforeMs) },
    transaction,
  });
  // Databases call back into agents, alerts and optimizations, made after them: bound here, called only later.
  const databases = createDatabases({
    db,
    secretBox,
    generations,
    agents: { findById: (orgId, agentId) => agents.records.findById(orgId, agentId) },
    statuses: { databaseUpdated: (previous, next, now) => alerts.alerting.databaseUpdated(previous, next, now) },
    connectionChanges: { databaseConnectionChanged: (id, now) => optimizations.optimizationJobs.databaseConnectionChanged(id, now) },
    transaction,
  });
  const agents = createAgents({ db, databases: databases.databases });
  const optimizations = createOptimizations({ db, databases: databases.databases, queries: queries.queries, events: webhooks.events, transaction });
  const metrics = createMetrics({
    db,
    catalog,
    retention,
    databases: databases.databases,
    agents: agents.records,
    queries: queries.queries,
    steps: {
      statements: queries.queries,
      optimizations: optimizations.optimizations,
      // Alerts read the samples metrics stores, so they are made after it.
      alerts: { evaluateDatabases: (databaseIds, now) => alerts.alerting.evaluateDatabases(databaseIds, now) },
    },
    transaction,
    unsyncedTransaction: unsynced(db, transaction),
    syncWal: walSync(db),
    turns,
    ingestSliceBudgetMs: options.ingestSliceBudgetMs,
  });
  const alerts = createAlerts({
    db,
    generations,
    databases: databases.records,
    resumes: databases.resumes,
    samples: metrics.samples,
    events: webhooks.events,
    transaction,
    startedAt: options.startedAt,
  });
  const { identity, users, organizations } = createIdentity({
    db,
    organizationCreated: (organization, now) => alerts.alertRules.createStockRules(organization.id, now),
    transaction,
  });
  const audit = createAudit({ db });
  const apiKeys = createApiKeys({ db, identity, generations, audit: audit.audit, transaction, maxLivePerOrganization: options.maxLiveApiKeysPerOrganization });
  const publicUrl = options.publicUrl ?? 'http://localhost';
  const oauth = createOAuth({ db, audit: audit.audit, publicUrl, transaction });
  const accounts = createAccounts({
    db,
    identity,
    users,
    organizations,
    audit: audit.audit,
    generations,
    apiKeys: apiKeys.apiKeys,
    personalKeys: apiKeys.records,
    oauthTokens: oauth.oauth.tokens,
    publicUrl,
    mailer: options.mailer,
    locate: sessionLocator(options.geoip),
    secretBox,
    smsSender: options.smsSender,
    // SAML is made after accounts, whose sign-in it uses: bound here, called only later.
    passwordPolicy: { passwordSignIn: (user, client, now) => saml.passwordPolicy.passwordSignIn(user, client, now) },
    transaction,
  });
  const saml = createSaml({
    db,
    organizations,
    users: { findForSignIn: (email) => users.findForSignIn(email), createUser: (input, now) => identity.createUser(input, now) },
    sessions: accounts.accounts.signIn,
    audit: audit.audit,
    publicUrl,
    transaction,
  });
  const providers = createProviders({
    db,
    users,
    organizations,
    sessions: accounts.accounts.signIn,
    secretBox,
    endpoints: options.providerEndpoints ?? publicProviderEndpoints,
    publicUrl,
    audit: audit.audit,
    transaction,
  });

  return {
    catalog,
    services: {
      identity,
      apiKeys: apiKeys.apiKeys,
      /** Sign-in, sessions, the caller's profile and the organization's settings. */
      accounts: { ...accounts.accounts, audit: audit.audit },
      /** OAuth applications, the authorization endpoint and tokens (dbmon as an authorization server). */
      oauth: oauth.oauth,
      /** SAML single sign-on: settings, test and the sign-in at the ACS. */
      saml: saml.saml,
      /** Sign-in through GitHub, Google, Microsoft and GitLab: the organization's settings, the sign-in, users' identities. */
      providers: providers.providers,
      databases: databases.databases,
      agents: agents.agents,
      ingest: metrics.ingest,
      rollups: metrics.rollups,
      /** Seals closed rollup spans into blocks (a background job). */
      rollupSeal: metrics.rollupSeal,
      /** Seals closed hours of raw samples into blocks (a background job). */
      seal: metrics.seal,
      retention: metrics.retention,
      /** Slow queries; `queries.expire(now)` applies their retention (that of raw samples). */
      queries: queries.queries,
      /** Folds statement intervals into hour rows (a background job). */
      statementFold: queries.fold,
      optimizations: optimizations.optimizations,
      /** Agent jobs; the embedded agent leases with `lease(null, now)` (see optimizations/embedded-job-source.ts). */
      optimizationJobs: optimizations.optimizationJobs,
      /** Alert evaluation and database status; `evaluateAll(now)` is what the timer runs. */
      alerting: alerts.alerting,
      /** Alert rules (the database page lists those that apply). */
      alertRules: alerts.alertRules,
      /** Records events with their webhook deliveries, inside the transaction of the change. */
      events: webhooks.events,
      transaction,
    },
    /** What authenticates every /v1 request. */
    credentials: accounts.credentials,
    /** What the browser pages need of the accounts feature: their cookie and credential. */
    pageSessions: { cookie: accounts.cookie, credentials: accounts.pageCredentials },
    /** The loop's turns the background jobs' slices share with ingest's: the job scheduler takes them. */
    turns,
    /** What runs in the background, in slices, scheduled in one place (jobs/job-scheduler.ts). */
    backgroundJobs: [metrics.rollups, metrics.rollupSeal, metrics.seal, metrics.retention, queries.fold, new AlertEvaluationJob(alerts.alerting, databases.databases), audit.retention, accounts.sessionExpiry, saml.expiry],
    /** A webhook dispatcher over the outbox (not started). */
    webhookDispatcher: webhooks.dispatcher,
    /** What the /metrics scrape reads, besides the clock. */
    scrapeSources: {
      databases: () => databases.records.all(),
      latestSample: (databaseId) => metrics.samples.latest(databaseId),
      latestSamples: () => metrics.samples.latestOfEach(),
      lastReachedAt: (databaseId) => metrics.samples.lastReachedAt(databaseId),
      latestSnapshots: () => metrics.samples.latestSnapshots(),
      agents: () => agents.agents.all(),
      activeAlerts: () => alerts.activeCounts(),
      webhookBacklog: () => webhooks.backlog(),
      storageFiles: () => storageFileSizes(db),
    } satisfies Omit<ScrapeSources, 'now'>,
    /** Every feature's API routes, in the order the OpenAPI document lists them; each ingest is counted by `counter`. */
    routes: (counter: IngestCounter, now: () => Date): RouteDefinition[] => [
      ...apiKeys.routes(now),
      ...accounts.routes(now),
      ...oauth.routes(now),
      ...saml.routes(now),
      ...providers.routes(now),
      ...audit.routes(),
      ...databases.routes(now),
      ...metrics.routes({ databases: databases.databases, agents: agents.agents, counter, now }),
      ...agents.routes(now),
      ...alerts.routes(now),
      ...webhooks.routes(now),
      ...queries.routes(databases.databases, now),
      ...optimizations.routes(agents.agents, now),
    ],
  };
}
