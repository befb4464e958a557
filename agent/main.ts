#!/usr/bin/env -S node --max-semi-space-size=1 --jitless --no-expose-wasm
// A 1 MiB young generation: without it V8 grows it to 8–16 MiB after a burst, 10–17 MiB more resident
// memory for an agent whose steady state is under 20 MiB of heap (BENCHMARKS.md, #20 point 5).
// --jitless: V8's optimizing compilers are never paged in, about 10 MiB less resident at no
// measurable CPU per cycle, whose time is in the drivers' I/O (BENCHMARKS.md, session 7). It takes
// WebAssembly away (--no-expose-wasm says so without a warning): node's fetch needs it, so the agent
// must not use fetch. The systemd unit starts node with the same flags.
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../common/config-loader.js';
import { createLogger, type Logger } from '../common/logger.js';
import { packageVersion } from '../common/package-version.js';
import { AssignmentStore } from './assignments/assignment-store.js';
import { loadAgentConfig, parseAgentArgs, type AgentConfig } from './config.js';
import { HttpJobSource } from './advisor/http-job-source.js';
import { HttpTransport } from './delivery/http-transport.js';
import { startAgent, type RunningAgent } from './start-agent.js';

const exitUsage = 64;
const exitConfigError = 78;
const spoolFileName = 'spool.db';
const assignmentsFileName = 'assignments.sealed';
const usage = 'usage: dbmon-agent [run|validate|check] [--config FILE] [--server-url URL] [--state-dir DIR] [--log-level LEVEL] | --version';

async function main(): Promise<void> {
  let args: ReturnType<typeof parseAgentArgs>;
  try {
    args = parseAgentArgs(process.argv.slice(2));
  } catch (error) {
    return fail(exitUsage, `dbmon-agent: ${(error as Error).message}\n${usage}`);
  }
  if (args.version) {
    process.stdout.write(`dbmon-agent ${packageVersion()}\n`);
    return;
  }
  const command = args.command ?? 'run';
  if (command !== 'run' && command !== 'validate' && command !== 'check') return fail(exitUsage, `dbmon-agent: unknown command ${command}\n${usage}`);

  let config: AgentConfig;
  try {
    config = loadAgentConfig(args.flags, process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return fail(exitConfigError, `dbmon-agent: invalid configuration: ${error.message}`);
  }
  if (command === 'validate') {
    process.stdout.write('ok\n');
    return;
  }
  if (command === 'check') return check(config);
  run(config, args.flags);
}

/** Checks the grants and settings on every local database of the configuration; exit 1 if something is missing. */
async function check(config: AgentConfig): Promise<void> {
  if (config.databases.length === 0) {
    process.stdout.write('no local databases in the configuration (databases:); the server checks those it assigns\n');
    return;
  }
  // Only `check` needs both drivers at once; `run` loads each when its first database appears.
  const { allPresent, checkDatabase, formatChecks } = await import('./check/check-database.js');
  const checks = [];
  for (const database of config.databases) checks.push(await checkDatabase(database));
  process.stdout.write(`${formatChecks(checks).join('\n')}\n`);
  process.exitCode = allPresent(checks) ? 0 : 1;
}

function run(initial: AgentConfig, flags: Record<string, string | undefined>): void {
  const logger = createLogger(initial.log.level);
  const stateDir = initial.state_dir;
  let agent: RunningAgent;
  try {
    agent = start(initial, stateDir, logger);
  } catch (error) {
    // Typically the spool is locked by another agent running on the same state directory.
    crash(logger, error);
  }
  // Signals are handled one after another: a reload never overlaps a stop.
  let queue = Promise.resolve();
  let stopping = false;

  const reload = async (): Promise<void> => {
    let next: AgentConfig;
    try {
      next = loadAgentConfig(flags, process.env);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      logger.error({ error: error.message }, 'configuration not reloaded: it is invalid; the agent goes on as it was');
      return;
    }
    if (next.state_dir !== stateDir) {
      logger.warn({ stateDir, configured: next.state_dir }, 'state_dir takes effect only at restart; the current spool stays in use');
    }
    logger.level = next.log.level;
    // A full restart of the pieces; the spool is on disk, so nothing waiting in it is lost.
    await agent.stop();
    agent = start(next, stateDir, logger);
    logger.info('configuration reloaded');
  };

  const stop = async (signal: string): Promise<void> => {
    logger.info({ signal }, 'stopping');
    await agent.stop();
    logger.info('stopped');
  };

  process.on('SIGHUP', () => {
    if (stopping) return;
    logger.info({ signal: 'SIGHUP' }, 'reloading configuration and assignments');
    queue = queue.then(reload).catch((error: unknown) => crash(logger, error));
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) {
        logger.warn({ signal }, 'second stop signal: exiting now; unsent batches stay in the spool');
        process.exit(1);
      }
      stopping = true;
      queue = queue.then(() => stop(signal)).catch((error: unknown) => crash(logger, error));
    });
  }
}

function start(config: AgentConfig, stateDir: string, logger: Logger): RunningAgent {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const connection = {
    serverUrl: config.server.url,
    agentKey: config.server.agent_key,
    version: packageVersion(),
    hostname: hostname(),
    timeoutMs: config.server.timeout_seconds * 1000,
  };
  const transport = new HttpTransport(connection);
  const backoff = {
    baseMs: config.delivery.backoff_initial_seconds * 1000,
    capMs: config.delivery.backoff_max_seconds * 1000,
  };
  logger.info({ server: config.server.url, stateDir, version: packageVersion(), localDatabases: config.databases.length }, 'dbmon agent starting');
  if (config.server.allow_insecure_http) {
    logger.warn(
      { setting: 'server.allow_insecure_http', server: config.server.url },
      'a weakened default is in force: a plain http:// server URL is accepted, so the agent key and collected data may cross the network unencrypted',
    );
  }
  return startAgent({
    transport,
    assignments: transport,
    assignmentStore: new AssignmentStore(join(stateDir, assignmentsFileName), config.server.agent_key, logger.child({ component: 'assignments' })),
    jobs: new HttpJobSource(connection),
    spoolPath: join(stateDir, spoolFileName),
    maxSpoolSamples: config.spool.max_samples,
    logger,
    localDatabases: config.databases,
    backoff,
    assignmentsRefreshMs: config.server.assignments_refresh_seconds * 1000,
    postgresSeriesLimits: { topStatements: config.collection.top_statements, largestTables: config.collection.largest_tables },
  });
}

function crash(logger: Logger, error: unknown): never {
  logger.fatal({ error: error instanceof Error ? error.message : String(error) }, 'agent failed');
  process.exit(1);
}

function fail(code: number, message: string): void {
  process.stderr.write(`${message}\n`);
  process.exitCode = code;
}

await main();
