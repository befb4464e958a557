import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ConfigError, loadLayeredConfig, type ConfigBinding } from '../common/config-loader.js';
import { isLoopbackHost } from '../common/is-loopback-host.js';
import { databaseTypes } from '../common/agent-protocol/database-types.js';
import type { Assignment } from './assignments/assignment.js';

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

const serverUrl = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a URL') })
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.search === '' && url.hash === '';
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// URL without query or fragment')
  .transform((value) => value.replace(/\/+$/, ''));

const agentKey = z
  .string({
    error: (issue) =>
      issue.input === undefined
        ? 'is required (in the config file, DBMON_AGENT_KEY, DBMON_AGENT_KEY_FILE or $CREDENTIALS_DIRECTORY/agent-key)'
        : 'must be text',
  })
  .min(1, 'must not be empty');

const seconds = (min: number, max: number, fallback: number) => z.number().min(min).max(max).default(fallback);

/** A database collected without a server assignment: its id comes from the server, its connection stays on this host. */
const localDatabaseSchema = z.strictObject({
  id: z.string().regex(/^db_[0-9A-Za-z]+$/, 'must be the database id the server gave it (db_...)'),
  name: z.string().optional(),
  type: z.enum(databaseTypes),
  interval_seconds: z.number().int().min(1).max(86_400).default(60),
  connection: z.strictObject({
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535),
    database: z.string(),
    username: z.string().min(1),
    password: z.string().optional(),
    /** Read at load time, so the password itself need not be in the config file. */
    password_file: z.string().optional(),
    ssl: z.boolean().default(false),
  }),
});

const serverSchema = z
  .strictObject({
    url: serverUrl,
    agent_key: agentKey,
    /** Deadline of one request to the server. */
    timeout_seconds: seconds(1, 300, 15),
    assignments_refresh_seconds: seconds(1, 3600, 60),
    /** Accept a plain http:// URL to another host: the agent key and collected data then cross the network in clear text. */
    allow_insecure_http: z.boolean({ error: 'must be true or false' }).default(false),
  })
  .superRefine((server, context) => {
    if (server.allow_insecure_http || !isPlainHttpToAnotherHost(server.url)) return;
    context.addIssue({
      code: 'custom',
      path: ['url'],
      message:
        'plain http:// is refused except to loopback (the agent key would cross the network in clear text); ' +
        'use https://, or set server.allow_insecure_http: true (DBMON_AGENT_ALLOW_INSECURE_HTTP=true)',
    });
  });

const agentConfigSchema = z.strictObject({
  // Parsed even when absent, so a missing url or key is reported by its own name.
  server: serverSchema.prefault({} as z.input<typeof serverSchema>),
  state_dir: z.string().min(1).default('./agent-data'),
  spool: z.strictObject({ max_samples: z.number().int().min(1).max(100_000_000).default(100_000) }).prefault({}),
  delivery: z
    .strictObject({
      /** First retry delay ceiling; it doubles per failed attempt, with full jitter. */
      backoff_initial_seconds: seconds(0.01, 60, 1),
      /** Longest wait between attempts while the server is down (and after a refused key). */
      backoff_max_seconds: seconds(0.1, 3600, 60),
    })
    .prefault({}),
  log: z.strictObject({ level: logLevel.default('info') }).prefault({}),
  // Series of their own for the statements that took the most time and for the largest tables;
  // the bounds keep one sample well inside a delivery batch (512 KiB).
  collection: z
    .strictObject({
      top_statements: z.number().int().min(0).max(500).default(100),
      largest_tables: z.number().int().min(0).max(100).default(20),
    })
    .prefault({}),
  databases: z.array(localDatabaseSchema).default([]),
});

type ParsedAgentConfig = z.output<typeof agentConfigSchema>;

export type AgentConfig = Readonly<
  Omit<ParsedAgentConfig, 'databases'> & {
    /** Absolute. */
    state_dir: string;
    /** Local databases in the shape of server assignments, passwords read. */
    databases: readonly Assignment[];
  }
>;

const bindings: readonly ConfigBinding[] = [
  { path: 'server.url', env: 'DBMON_AGENT_SERVER_URL', flag: 'server-url' },
  { path: 'server.agent_key', env: 'DBMON_AGENT_KEY', secret: true },
  { path: 'server.timeout_seconds', env: 'DBMON_AGENT_SERVER_TIMEOUT_SECONDS' },
  { path: 'server.assignments_refresh_seconds', env: 'DBMON_AGENT_ASSIGNMENTS_REFRESH_SECONDS' },
  { path: 'server.allow_insecure_http', env: 'DBMON_AGENT_ALLOW_INSECURE_HTTP' },
  { path: 'state_dir', env: 'DBMON_AGENT_STATE_DIR', flag: 'state-dir' },
  { path: 'spool.max_samples', env: 'DBMON_AGENT_SPOOL_MAX_SAMPLES' },
  { path: 'delivery.backoff_initial_seconds', env: 'DBMON_AGENT_BACKOFF_INITIAL_SECONDS' },
  { path: 'delivery.backoff_max_seconds', env: 'DBMON_AGENT_BACKOFF_MAX_SECONDS' },
  { path: 'log.level', env: 'DBMON_AGENT_LOG_LEVEL', flag: 'log-level' },
  { path: 'collection.top_statements', env: 'DBMON_AGENT_TOP_STATEMENTS' },
  { path: 'collection.largest_tables', env: 'DBMON_AGENT_LARGEST_TABLES' },
];

export const agentConfigFlags = {
  config: { type: 'string' },
  'server-url': { type: 'string' },
  'state-dir': { type: 'string' },
  'log-level': { type: 'string' },
} as const;

/** The file systemd's LoadCredential=agent-key:... puts in $CREDENTIALS_DIRECTORY. */
export const credentialName = 'agent-key';

/**
 * Reads defaults < YAML (--config or DBMON_AGENT_CONFIG) < $CREDENTIALS_DIRECTORY/agent-key <
 * DBMON_AGENT_* environment (DBMON_AGENT_KEY, DBMON_AGENT_KEY_FILE) < flags, validated once.
 * Throws ConfigError naming the offending key.
 */
export function loadAgentConfig(flags: Record<string, string | undefined>, env: NodeJS.ProcessEnv): AgentConfig {
  const yamlPath = flags.config ?? (env.DBMON_AGENT_CONFIG || undefined);
  const config = loadLayeredConfig(agentConfigSchema, bindings, { yamlPath, env: withCredential(env), flags });
  return Object.freeze({
    ...config,
    state_dir: resolve(config.state_dir),
    databases: Object.freeze(config.databases.map(localAssignment)),
  });
}

function isPlainHttpToAnotherHost(serverUrl: string): boolean {
  const url = new URL(serverUrl);
  return url.protocol === 'http:' && !isLoopbackHost(url.hostname);
}

/** A systemd credential stands in for DBMON_AGENT_KEY_FILE unless the key is set in the environment. */
function withCredential(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const directory = env.CREDENTIALS_DIRECTORY;
  if (!directory || env.DBMON_AGENT_KEY || env.DBMON_AGENT_KEY_FILE) return env;
  const file = join(directory, credentialName);
  return existsSync(file) ? { ...env, DBMON_AGENT_KEY_FILE: file } : env;
}

function localAssignment(database: ParsedAgentConfig['databases'][number], index: number): Assignment {
  const { password, password_file: passwordFile, ...connection } = database.connection;
  const key = `databases.${index}.connection.password_file`;
  if (password !== undefined && passwordFile !== undefined) throw new ConfigError(key, 'set either password or password_file, not both');
  let secret = password ?? null;
  if (passwordFile !== undefined) {
    try {
      secret = readFileSync(passwordFile, 'utf8').trim();
    } catch (error) {
      throw new ConfigError(key, `cannot read ${passwordFile}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  }
  return {
    id: database.id,
    name: database.name ?? database.id,
    type: database.type,
    interval_seconds: database.interval_seconds,
    // The operator's own database: a password left out may come from PGPASSWORD or a pgpass file.
    connection: { ...connection, password: secret, ambientCredentials: true },
  };
}

export function parseAgentArgs(argv: string[]): { command: string | undefined; version: boolean; flags: Record<string, string | undefined> } {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...agentConfigFlags, version: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length > 1) throw new TypeError(`unexpected argument: ${positionals[1]}`);
  const { version, ...flags } = values;
  return { command: positionals[0], version: version === true, flags };
}
