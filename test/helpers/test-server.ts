import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type Koa from 'koa';
import { createLogger } from '../../common/logger.js';
import type { MetricCatalog } from '../../common/metric-catalog.js';
import { closeGracefully, listen } from '../../server/http-server.js';
import type { RunningAgent } from '../../agent/start-agent.js';
import { composeServer, type EmbeddedAgentRun } from '../../server/compose-server.js';
import type { ServerServices } from '../../server/compose-services.js';
import { createSmtpMailer, type SmtpSettings } from '../../server/mail/smtp-mailer.js';
import { createSmsSender, type SmsSettings } from '../../server/sms/create-sms-sender.js';
import { openGeoipDatabase } from '../../server/auth/sessions/geoip-database.js';
import type { BackgroundJob } from '../../server/jobs/background-job.js';
import { openStateDir } from '../../server/state-dir.js';
import type { WebhookDispatcher, WebhookDispatcherOptions } from '../../server/webhooks/webhook-dispatcher.js';
import type { RetryPolicy } from '../../server/webhooks/retry-schedule.js';
import { migrate } from '../../server/storage/migrate.js';
import type { Db } from '../../server/storage/open-database.js';
import type { Plan } from '../../server/auth/identity/plans.js';
import type { Access, Role, Scope } from '../../server/auth/permissions.js';
import { openApiResponseChecker } from './openapi-response-check.js';
import type { ProviderEndpoints } from '../../server/auth/providers/provider-endpoints.js';

export interface TestServer {
  url: string;
  /** The Koa application being served (its middleware holds the router, for tests that enumerate routes). */
  app: Koa;
  stateDir: string;
  db: Db;
  services: ServerServices;
  /** Every log line the server wrote, as raw JSON text. */
  logLines: string[];
  clock: { now: Date };
  /** A webhook dispatcher over this server's state, on its clock; not started (drive it with tick()), stopped on close. */
  dispatcher: (options?: Partial<Omit<WebhookDispatcherOptions, 'deliveries' | 'guard' | 'logger' | 'observer'>>) => WebhookDispatcher;
  /** The server's embedded agent over its services, counted on its /metrics; not stopped on close. */
  startEmbeddedAgent: (options: EmbeddedAgentRun) => RunningAgent;
  /** What main.ts schedules in the background (rollups, retention, alert evaluation, audit and session expiry). */
  backgroundJobs: readonly BackgroundJob[];
  request: (method: string, path: string, options?: RequestOptions) => Promise<TestResponse>;
  close: () => Promise<void>;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests inspect arbitrary JSON
  text: string;
}

/**
 * A real server on an ephemeral loopback port over a real SQLite file in a temporary state directory.
 * With `stateDir`, it opens that directory instead (say, one the operator CLI prepared) and leaves it in place on close.
 */
export async function startTestServer(
  options: {
    now?: Date;
    bodyLimitBytes?: number;
    stateDir?: string;
    metricsToken?: string;
    /** Config webhooks.allow_private_targets (default false, as in production): tests with local receivers set it. */
    allowPrivateWebhookTargets?: boolean;
    webhookRetryPolicy?: RetryPolicy;
    /** Config api_keys.max_live_per_organization (default 1,000). */
    maxLiveApiKeysPerOrganization?: number;
    /** Config server.trusted_proxies. */
    trustedProxies?: string[];
    /** Config server.public_url (https: a Secure, __Host- session cookie). */
    publicUrl?: string;
    /** The loopback port to listen on (default: any free one); with `publicUrl` of the same port, the server's own address is its public URL (the OAuth issuer). */
    port?: number;
    /** A fixture metric catalog (its extra columns added to the state database beforehand). */
    catalog?: MetricCatalog;
    /** Config email.smtp_url and email.from: invitations and password resets are mailed. */
    email?: SmtpSettings;
    /** Config geoip.database: a MaxMind DB file (test/helpers/mmdb-file.ts builds one). */
    geoipDatabase?: string;
    /** Config sms.*: the sender of SMS codes (none: SMS is not offered). */
    sms?: SmsSettings;
    /** Where GitHub, Google and Microsoft are: local fakes (test/helpers/fake-identity-providers.ts). */
    providerEndpoints?: ProviderEndpoints;
    /** About how much work each ingest transaction does; 0: one sample per slice. */
    ingestSliceBudgetMs?: number;
  } = {},
): Promise<TestServer> {
  const ownsStateDir = options.stateDir === undefined;
  const stateDir = options.stateDir ?? mkdtempSync(join(tmpdir(), 'dbmon-test-'));
  const { db, secretKey } = openStateDir(stateDir, undefined);
  migrate(db);
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger('debug', sink);
  const clock = { now: options.now ?? new Date() };
  const dispatchers: WebhookDispatcher[] = [];
  const composed = composeServer(db, secretKey, {
    startedAt: options.now ?? new Date(),
    allowPrivateWebhookTargets: options.allowPrivateWebhookTargets ?? false,
    ...(options.webhookRetryPolicy && { webhookRetryPolicy: options.webhookRetryPolicy }),
    ...(options.maxLiveApiKeysPerOrganization !== undefined && { maxLiveApiKeysPerOrganization: options.maxLiveApiKeysPerOrganization }),
    ...(options.catalog && { catalog: options.catalog }),
    ...(options.ingestSliceBudgetMs !== undefined && { ingestSliceBudgetMs: options.ingestSliceBudgetMs }),
    ...(options.email && { mailer: createSmtpMailer(options.email, logger.child({ component: 'mail' })) }),
    ...(options.sms && { smsSender: createSmsSender(options.sms, logger.child({ component: 'sms' })) }),
    logger,
    now: () => clock.now,
    metricsToken: options.metricsToken,
    bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024,
    version: 'test',
    ...(options.trustedProxies && { trustedProxies: options.trustedProxies }),
    ...(options.publicUrl && { publicUrl: options.publicUrl }),
    ...(options.providerEndpoints && { providerEndpoints: options.providerEndpoints }),
    ...(options.geoipDatabase !== undefined && { geoip: await openGeoipDatabase(options.geoipDatabase) }),
  });
  const { app, services } = composed;
  const server: Server = await listen(app, '127.0.0.1', options.port ?? 0, logger);
  // Client and server share this process: when a test blocks the event loop past the 5 s default,
  // the server's idle timer and fetch's reuse of that socket race, and the request dies with ECONNRESET.
  server.keepAliveTimeout = 60_000;
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const checkResponse = await openApiResponseChecker(url);
  return {
    url,
    app,
    stateDir,
    db,
    services,
    logLines,
    clock,
    dispatcher: (dispatcherOptions = {}) => {
      const dispatcher = composed.webhookDispatcher({
        logger: logger.child({ component: 'webhooks' }),
        now: () => clock.now,
        ...dispatcherOptions,
      });
      dispatchers.push(dispatcher);
      return dispatcher;
    },
    startEmbeddedAgent: composed.startEmbeddedAgent,
    backgroundJobs: composed.backgroundJobs,
    // Every response a test receives must be one the served OpenAPI document describes.
    request: async (method, path, requestOptions = {}) => {
      const response = await send(url, method, path, requestOptions);
      checkResponse(method, path, { status: response.status, headers: response.headers, body: response.body ?? (response.text === '' ? undefined : response.text) });
      return response;
    },
    close: async () => {
      await Promise.all(dispatchers.map((dispatcher) => dispatcher.stop()));
      await closeGracefully(server, 1000);
      db.close();
      if (ownsStateDir) rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

async function send(url: string, method: string, path: string, options: RequestOptions): Promise<TestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${url}${path}`, { method, headers, ...(body !== undefined && { body }) });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

export interface Tenant {
  orgId: string;
  /** A write service-account key with the default scopes. */
  key: string;
}

/** An organization with a write service-account key; the building block of most API tests. */
export function createTenant(services: ServerServices, now: Date, plan: Plan = 'enterprise', name = `org-${Math.random().toString(36).slice(2)}`): Tenant {
  const organization = services.identity.createOrganization({ name, plan }, now);
  return { orgId: organization.id, key: createServiceKey(services, organization.id, now) };
}

export function createServiceKey(
  services: ServerServices,
  orgId: string,
  now: Date,
  options: { permission?: Access; scopes?: Scope[]; expiresAt?: string; account?: string } = {},
): string {
  const permission = options.permission ?? 'write';
  const account = services.identity.serviceAccount(orgId, options.account ?? `sa-${permission}`, permission, now);
  return services.apiKeys.create(
    orgId,
    { kind: 'service_account', serviceAccountId: account.id },
    { name: 'test key', permission, scopes: options.scopes, expires_at: options.expiresAt },
    now,
  ).value;
}

export function createUserKey(
  services: ServerServices,
  orgId: string,
  now: Date,
  role: Role,
  permission: Access = 'write',
  scopes?: Scope[],
): { userId: string; key: string } {
  const user = services.identity.createUser({ orgId, email: `${role}-${Math.random().toString(36).slice(2)}@example.test`, role }, now);
  const key = services.apiKeys.create(orgId, { kind: 'personal', userId: user.id }, { name: 'pat', permission, scopes }, now).value;
  return { userId: user.id, key };
}
