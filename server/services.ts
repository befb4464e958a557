import { metricCatalog, type MetricCatalog } from '../common/metric-catalog.js';
import { AgentsRepository } from './agents/agents-repository.js';
import { AlertEvaluationService } from './alerts/alert-evaluation-service.js';
import { AlertRulesRepository } from './alerts/alert-rules-repository.js';
import { AlertRulesService } from './alerts/alert-rules-service.js';
import { AlertsRepository } from './alerts/alerts-repository.js';
import { AlertsService } from './alerts/alerts-service.js';
import { AgentsService } from './agents/agents-service.js';
import { ApiKeysRepository } from './auth/api-keys/api-keys-repository.js';
import { ApiKeysService } from './auth/api-keys/api-keys-service.js';
import { createAccounts, type Accounts } from './auth/accounts.js';
import { IdentityService } from './auth/identity/identity-service.js';
import { OrganizationsRepository } from './auth/identity/organizations-repository.js';
import { ServiceAccountsRepository } from './auth/identity/service-accounts-repository.js';
import { UsersRepository } from './auth/identity/users-repository.js';
import { SecretBox } from '../common/secret-box.js';
import { DatabasesRepository } from './databases/databases-repository.js';
import { DatabaseListPages } from './databases/database-list-pages.js';
import { GenerationCache, TableGenerations } from './storage/generation-cache.js';
import { DatabasesService } from './databases/databases-service.js';
import { MonitoringResumesRepository } from './databases/monitoring-resumes-repository.js';
import { IngestService } from './metrics/ingest-service.js';
import { MetricsService } from './metrics/metrics-service.js';
import { defaultRetention, type RetentionMs } from './metrics/retention.js';
import { RollupJob } from './metrics/rollup-job.js';
import { SamplesRepository } from './metrics/samples-repository.js';
import type { OptimizationEvents } from './optimizations/optimization-events.js';
import { OptimizationJobsRepository } from './optimizations/optimization-jobs-repository.js';
import { OptimizationJobsService } from './optimizations/optimization-jobs-service.js';
import { OptimizationsRepository } from './optimizations/optimizations-repository.js';
import { OptimizationsService } from './optimizations/optimizations-service.js';
import { presentOptimization } from './optimizations/optimization-presenter.js';
import { QueriesRepository } from './queries/queries-repository.js';
import { QueriesService } from './queries/queries-service.js';
import type { Db, Transaction } from './storage/open-database.js';
import { DestinationGuard } from './webhooks/destination-guard.js';
import { EventOutbox } from './webhooks/event-outbox.js';
import { defaultRetryPolicy, type RetryPolicy } from './webhooks/retry-schedule.js';
import { WebhookDeliveries } from './webhooks/webhook-deliveries.js';
import { WebhookOutboxRepository } from './webhooks/webhook-outbox-repository.js';
import { WebhooksRepository } from './webhooks/webhooks-repository.js';
import { WebhooksService } from './webhooks/webhooks-service.js';

export interface Services {
  organizations: OrganizationsRepository;
  databaseRows: DatabasesRepository;
  /** The metrics collected, stored and shown. */
  catalog: MetricCatalog;
  samples: SamplesRepository;
  identity: IdentityService;
  apiKeys: ApiKeysService;
  /** Sign-in, sessions, the caller's profile and the organization's settings. */
  accounts: Accounts;
  databases: DatabasesService;
  databaseListPages: DatabaseListPages;
  agents: AgentsService;
  ingest: IngestService;
  metrics: MetricsService;
  rollups: RollupJob;
  /** Slow queries; `queries.expire(now)` applies their retention (that of raw samples). */
  queries: QueriesService;
  optimizations: OptimizationsService;
  /** Agent jobs; the embedded agent leases with `lease(null, now)` (see optimizations/embedded-job-source.ts). */
  optimizationJobs: OptimizationJobsService;
  alertRules: AlertRulesService;
  alerts: AlertsService;
  /** Alert evaluation and database status; `evaluateAll(now)` is what the timer runs. */
  alerting: AlertEvaluationService;
  /** Records events with their webhook deliveries, inside the transaction of the change. */
  events: EventOutbox;
  webhooks: WebhooksService;
  /** The outbox side of webhook delivery, for the dispatcher (webhooks/webhook-dispatcher.ts). */
  webhookDeliveries: WebhookDeliveries;
  /** Where webhooks may be sent (webhooks.allow_private_targets), for the dispatcher. */
  webhookDestinations: DestinationGuard;
  transaction: Transaction;
}

export interface ServicesOptions {
  /** Config webhooks.allow_private_targets. */
  allowPrivateWebhookTargets?: boolean;
  webhookRetryPolicy?: RetryPolicy;
  /** When the server started: alert evaluation does not count silence from before it as unreachability. */
  startedAt?: Date;
  /** Config api_keys.max_live_per_organization. */
  maxLiveApiKeysPerOrganization?: number;
  /** The metric catalog; a test may pass a fixture. */
  catalog?: MetricCatalog;
}

/** Wires repositories into services over one open state database; shared by the server and the operator CLI. */
export function createServices(db: Db, secretKey: Buffer, retention: RetentionMs = defaultRetention, options: ServicesOptions = {}): Services {
  const organizations = new OrganizationsRepository(db);
  const databaseRows = new DatabasesRepository(db);
  const agentRows = new AgentsRepository(db);
  const catalog = options.catalog ?? metricCatalog;
  const samples = new SamplesRepository(db, catalog);
  const transaction: Transaction = (work) => db.transaction(work)();
  const generations = new TableGenerations(db);
  const secretBox = new SecretBox(secretKey);
  const webhookRows = new WebhooksRepository(db);
  const outboxRows = new WebhookOutboxRepository(db);
  const events = new EventOutbox(outboxRows, webhookRows);
  const webhookDestinations = new DestinationGuard(options.allowPrivateWebhookTargets ?? false);
  const alertRuleRows = new AlertRulesRepository(db);
  const alertRows = new AlertsRepository(db);
  const alerting = new AlertEvaluationService({
    databases: databaseRows,
    samples,
    rules: alertRuleRows,
    alerts: alertRows,
    resumes: new MonitoringResumesRepository(db),
    events,
    transaction,
    ...(options.startedAt && { startedAtMs: options.startedAt.getTime() }),
  });
  const alertRules = new AlertRulesService(alertRuleRows, alertRows, databaseRows, alerting, transaction);
  const identity = new IdentityService(
    organizations,
    new UsersRepository(db),
    new ServiceAccountsRepository(db),
    (organization, now) => alertRules.createStockRules(organization.id, now),
    transaction,
  );
  // Called only once the services below exist: inside a database update's transaction.
  const connectionChanges = { databaseConnectionChanged: (id: string, now: Date) => optimizationJobs.databaseConnectionChanged(id, now) };
  const databases = new DatabasesService(databaseRows, agentRows, secretBox, alerting, connectionChanges, transaction);
  const rollups = new RollupJob(db, retention, catalog);
  const queries = new QueriesService(new QueriesRepository(db), retention.raw);
  const optimizationEvents: OptimizationEvents = {
    record: (type, row, now) => events.publish(row.org_id, type, { object: presentOptimization(row) }, now),
  };
  const optimizationRows = new OptimizationsRepository(db);
  const optimizationJobRows = new OptimizationJobsRepository(db);
  const optimizations = new OptimizationsService(optimizationRows, optimizationJobRows, databases, queries, optimizationEvents, transaction);
  const optimizationJobs = new OptimizationJobsService(optimizationJobRows, optimizationRows, optimizations, databaseRows, databases, transaction);
  const accounts = createAccounts(db, organizations, transaction);
  return {
    organizations,
    databaseRows,
    catalog,
    samples,
    identity,
    apiKeys: new ApiKeysService(
      new ApiKeysRepository(db),
      identity,
      accounts.audit,
      transaction,
      new GenerationCache(generations, 'credentials'),
      options.maxLiveApiKeysPerOrganization,
    ),
    accounts,
    databases,
    databaseListPages: new DatabaseListPages(databaseRows, generations),
    agents: new AgentsService(agentRows, databaseRows, databases),
    // One day of margin: a late sample must find the whole 1-day bucket it lands in still raw.
    ingest: new IngestService(
      db,
      samples,
      databaseRows,
      (database, snapshot, at) => databases.lastErrorOf(database, snapshot, at),
      agentRows,
      retention.raw - 86_400_000,
      {
        record: (databaseId, ts, statements) => queries.recordInterval(databaseId, ts, statements),
        recorded: (databaseId, fromTs, toTs, now) => optimizations.measureAfter(databaseId, fromTs, toTs, now),
      },
      (databaseIds, now) => alerting.afterIngest(databaseIds, now),
      catalog,
    ),
    metrics: new MetricsService(samples, rollups, retention, catalog),
    rollups,
    queries,
    optimizations,
    optimizationJobs,
    alertRules,
    alerts: new AlertsService(alertRows, alerting, events, transaction),
    alerting,
    events,
    webhooks: new WebhooksService(webhookRows, outboxRows, events, secretBox, webhookDestinations, transaction),
    webhookDeliveries: new WebhookDeliveries(outboxRows, webhookRows, secretBox, transaction, options.webhookRetryPolicy ?? defaultRetryPolicy),
    webhookDestinations,
    transaction,
  };
}
