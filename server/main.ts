#!/usr/bin/env node
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../common/config-loader.js';
import { createLogger } from '../common/logger.js';
import { packageVersion } from '../common/package-version.js';
import { createApp } from './app.js';
import { ensureInitialAdmin } from './bootstrap/first-start.js';
import { loadServerConfig, parseServerFlags, type ServerConfig } from './config.js';
import { RateLimiter } from './http/rate-limiter.js';
import { closeGracefully, listen } from './http-server.js';
import { createServerMetrics } from './metrics-endpoint/create-server-metrics.js';
import { createServices } from './services.js';
import { openStateDir } from './state-dir.js';
import { migrate } from './storage/migrate.js';

const exitConfigError = 78;

async function main(): Promise<void> {
  const config = readConfigOrExit();
  const logger = createLogger(config.log.level);
  const { db, secretKey } = openStateDir(config.state_dir, config.secret_key);
  migrate(db);
  const services = createServices(db, secretKey, config.retention);
  const now = () => new Date();
  await ensureInitialAdmin(services, config.state_dir, now(), logger);

  const app = createApp({
    db,
    logger,
    services,
    serverMetrics: createServerMetrics(services, now),
    metricsToken: config.metrics.token,
    rateLimiter: new RateLimiter(),
    now,
    bodyLimitBytes: config.server.body_limit_bytes,
    version: packageVersion(),
  });
  const server = await listen(app, config.server.host, config.server.port);
  const { address, port } = server.address() as AddressInfo;
  logger.info({ address, port, stateDir: config.state_dir, version: packageVersion() }, 'dbmon server listening');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await closeGracefully(server, config.server.shutdown_timeout_seconds * 1000);
    db.close();
    logger.info('stopped');
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
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

await main();
