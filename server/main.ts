#!/usr/bin/env node
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ConfigError } from '../common/config-loader.js';
import { createLogger } from '../common/logger.js';
import { packageVersion } from '../common/package-version.js';
import { ensureInitialAdmin } from './bootstrap/first-start.js';
import { composeServer } from './compose-server.js';
import { loadServerConfig, parseServerFlags, publicUrlOf, smsSettingsOf, smtpSettingsOf, weakenedDefaults, type ServerConfig } from './config.js';
import { closeGracefully, listen } from './http-server.js';
import { JobScheduler } from './jobs/job-scheduler.js';
import { createSmtpMailer } from './mail/smtp-mailer.js';
import { createSmsSender } from './sms/create-sms-sender.js';
import { exitOnStartUpError } from './exit-on-start-up-error.js';
import { openGeoipDatabase } from './auth/sessions/geoip-database.js';
import { listenError, stateDirError, StartUpError } from './start-up-error.js';
import { acquireStateLock } from './state-lock.js';
import { openStateDir } from './state-dir.js';
import { migrate } from './storage/migrate.js';
import { checkpointInBackground } from './storage/wal-checkpoint-job.js';

const exitConfigError = 78;

/** `geoip.database`, read once; a file that is missing or not a MaxMind DB stops the start as an invalid setting. */
async function openGeoipOrExit(path: string | undefined) {
  if (path === undefined) return undefined;
  return openGeoipDatabase(path).catch((error: unknown) => {
    throw new StartUpError(`geoip.database ${path}: ${(error as Error).message}`, exitConfigError);
  });
}

async function main(): Promise<void> {
  if (process.argv.slice(2).includes('--version')) {
    process.stdout.write(`dbmon-server ${packageVersion()}\n`);
    return;
  }
  const config = readConfigOrExit();
  const logger = createLogger(config.log.level);
  const { stateLock, db, secretKey } = openState(config, logger);
  const now = () => new Date();
  const smtp = smtpSettingsOf(config);
  const sms = smsSettingsOf(config);
  const geoip = await openGeoipOrExit(config.geoip.database);
  const composed = composeServer(db, secretKey, {
    retention: config.retention,
    allowPrivateWebhookTargets: config.webhooks.allow_private_targets,
    maxLiveApiKeysPerOrganization: config.api_keys.max_live_per_organization,
    startedAt: now(),
    ...(smtp && { mailer: createSmtpMailer(smtp, logger.child({ component: 'mail' })) }),
    ...(sms && { smsSender: createSmsSender(sms, logger.child({ component: 'sms' })) }),
    logger,
    now,
    metricsToken: config.metrics.token,
    bodyLimitBytes: config.server.body_limit_bytes,
    version: packageVersion(),
    trustedProxies: config.server.trusted_proxies,
    publicUrl: publicUrlOf(config),
    ...(geoip && { geoip }),
  });
  const { services } = composed;
  const server = await listen(composed.app, config.server.host, config.server.port, logger).catch((error: unknown) => {
    throw listenError(error, config.server.host, config.server.port);
  });
  // Only once the port is ours: a start that cannot listen leaves no organization or credentials behind.
  await ensureInitialAdmin(services, config.state_dir, now(), logger);
  const { address, port } = server.address() as AddressInfo;
  logger.info({ address, port, stateDir: config.state_dir, version: packageVersion() }, 'dbmon server listening');
  for (const { setting, risk } of weakenedDefaults(config)) logger.warn({ setting, risk }, 'a setting weakens a default');
  const checkpoints = checkpointInBackground(db);
  const backgroundJobs = [...composed.backgroundJobs, checkpoints];
  const jobs = new JobScheduler(backgroundJobs, now, { logger: logger.child({ component: 'jobs' }), observer: composed.serverMetrics, turns: composed.turns });
  jobs.start();
  const dispatcher = composed.webhookDispatcher({
    logger: logger.child({ component: 'webhooks' }),
    now,
    userAgent: `dbmon-webhooks/${packageVersion()}`,
  });
  dispatcher.start();
  const embeddedAgent = config.agent.embedded
    ? composed.startEmbeddedAgent({
        spoolPath: join(config.state_dir, 'embedded-agent-spool.db'),
        maxSpoolSamples: config.agent.spool_max_samples,
        // Not `component`: the agent binds that on its own parts (pusher, scheduler), and pino would write both.
        logger: logger.child({ agent: 'embedded' }),
        now,
      })
    : undefined;

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await embeddedAgent?.stop();
    await Promise.all([closeGracefully(server, config.server.shutdown_timeout_seconds * 1000), dispatcher.stop(), jobs.stop()]);
    await checkpoints.stop();
    db.close();
    stateLock.release();
    logger.info('stopped');
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

/** Takes the state directory's lock, opens and migrates its database; a directory the server may not write is a StartUpError. */
function openState(config: ServerConfig, logger: ReturnType<typeof createLogger>) {
  try {
    // Held while the server runs: `dbmon restore` refuses meanwhile, and a second server on this directory cannot start.
    const stateLock = acquireStateLock(config.state_dir);
    const { db, secretKey } = openStateDir(config.state_dir, config.secret_key);
    migrate(db, undefined, undefined, { onBackup: (file) => logger.info({ file }, 'backed up the database before migrating') });
    return { stateLock, db, secretKey };
  } catch (error) {
    throw stateDirError(error, config.state_dir);
  }
}

function readConfigOrExit(): ServerConfig {
  try {
    return loadServerConfig(parseServerFlags(process.argv.slice(2)), process.env);
  } catch (error) {
    if (!(error instanceof ConfigError) && !(error instanceof TypeError)) throw error;
    process.stderr.write(`dbmon: invalid configuration: ${error.message}\n`);
    process.exit(exitConfigError);
  }
}

await main().catch(exitOnStartUpError);
