import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { z } from 'zod';
import { loadLayeredConfig, type ConfigBinding } from '../common/config-loader.js';

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

const serverConfigSchema = z.strictObject({
  server: z
    .strictObject({
      host: z.string().min(1).default('127.0.0.1'),
      port: z.number().int().min(0).max(65535).default(7117),
      body_limit_bytes: z.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
      shutdown_timeout_seconds: z.number().int().min(1).max(600).default(10),
    })
    .prefault({}),
  state_dir: z.string().min(1).default('./data'),
  secret_key: z
    .string()
    .regex(/^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/, 'must be 32 bytes as 64 hex digits or base64')
    .optional(),
  log: z.strictObject({ level: logLevel.default('info') }).prefault({}),
  metrics: z.strictObject({ token: z.string().min(16, 'must be at least 16 characters').optional() }).prefault({}),
});

export type ServerConfig = z.output<typeof serverConfigSchema>;

const bindings: readonly ConfigBinding[] = [
  { path: 'server.host', env: 'DBMON_HOST', flag: 'host' },
  { path: 'server.port', env: 'DBMON_PORT', flag: 'port' },
  { path: 'server.body_limit_bytes', env: 'DBMON_BODY_LIMIT_BYTES' },
  { path: 'server.shutdown_timeout_seconds', env: 'DBMON_SHUTDOWN_TIMEOUT_SECONDS' },
  { path: 'state_dir', env: 'DBMON_STATE_DIR', flag: 'state-dir' },
  { path: 'secret_key', env: 'DBMON_SECRET_KEY', secret: true },
  { path: 'log.level', env: 'DBMON_LOG_LEVEL', flag: 'log-level' },
  { path: 'metrics.token', env: 'DBMON_METRICS_TOKEN', secret: true },
];

export const serverConfigFlags = {
  config: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  'state-dir': { type: 'string' },
  'log-level': { type: 'string' },
} as const;

/** Reads defaults < YAML (--config or DBMON_CONFIG) < DBMON_* environment < flags, validated once. */
export function loadServerConfig(flags: Record<string, string | undefined>, env: NodeJS.ProcessEnv): ServerConfig {
  const yamlPath = flags.config ?? (env.DBMON_CONFIG || undefined);
  const config = loadLayeredConfig(serverConfigSchema, bindings, { yamlPath, env, flags });
  return Object.freeze({ ...config, state_dir: resolve(config.state_dir) });
}

export function parseServerFlags(argv: string[]): Record<string, string | undefined> {
  return parseArgs({ args: argv, options: serverConfigFlags, strict: true, allowPositionals: false }).values;
}
