import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError, loadLayeredConfig, type ConfigBinding } from '../common/config-loader.js';
import { parseDuration } from '../common/duration.js';
import { isLoopbackHost } from '../common/is-loopback-host.js';
import { historyResolutions } from '../common/metric-catalog.js';
import { parseAddressRange } from './net/address-range.js';
import type { SmtpSettings } from './mail/smtp-mailer.js';
import type { SmsSettings } from './sms/create-sms-sender.js';
import { byHistoryResolution, defaultRetentionDurations } from './metrics/retention.js';

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

const duration = (fallback: string, minimumMs = 60_000) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const ms = parseDuration(text);
      if (ms === undefined || ms < minimumMs) {
        ctx.addIssue({ code: 'custom', message: `must be a duration such as ${fallback}, at least ${minimumMs / 1000} s` });
        return z.NEVER;
      }
      return ms;
    });

const serverConfigSchema = z.strictObject({
  server: z
    .strictObject({
      host: z.string().min(1).default('127.0.0.1'),
      port: z.number().int().min(0).max(65535).default(7117),
      body_limit_bytes: z.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
      shutdown_timeout_seconds: z.number().int().min(1).max(600).default(10),
      // Reverse proxies whose X-Forwarded-For entries are believed; the environment gives them comma-separated.
      trusted_proxies: z
        .preprocess(
          (value) => (typeof value === 'string' ? value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '') : value),
          z.array(z.string().refine((entry) => parseAddressRange(entry) !== undefined, { error: (issue) => `${String(issue.input)} is not an IP address or CIDR range` })),
        )
        .default([]),
      // The origin of every absolute link the server writes; https also makes the session cookie Secure and __Host-.
      public_url: z
        .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
        .refine((url) => {
          if (!URL.canParse(url)) return false;
          const { pathname, search, hash, username, password } = new URL(url);
          return pathname === '/' && search === '' && hash === '' && username === '' && password === '';
        }, 'must be an origin only (scheme, host and port; no path, query or credentials)')
        .transform((url) => new URL(url).origin)
        .optional(),
    })
    .prefault({}),
  state_dir: z.string().min(1).default('./data'),
  secret_key: z
    .string()
    .regex(/^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/, 'must be 32 bytes as 64 hex digits or base64')
    .optional(),
  log: z.strictObject({ level: logLevel.default('info') }).prefault({}),
  metrics: z.strictObject({ token: z.string().min(16, 'must be at least 16 characters').optional() }).prefault({}),
  agent: z
    .strictObject({
      embedded: z.boolean().default(true),
      spool_max_samples: z.number().int().min(100).default(100_000),
    })
    .prefault({}),
  api_keys: z
    .strictObject({
      // Keys neither revoked nor expired that one organization may hold; one more is refused (409 limit_reached).
      max_live_per_organization: z.number().int().min(1).default(1000),
    })
    .prefault({}),
  email: z
    .strictObject({
      // smtp:// (STARTTLS, required beyond loopback) or smtps:// (TLS), with the login as user and password.
      smtp_url: z
        .string()
        .refine((text) => {
          if (!URL.canParse(text)) return false;
          const url = new URL(text);
          return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== '' && (url.pathname === '' || url.pathname === '/') && url.search === '' && url.hash === '';
        }, 'must be smtp://[user:password@]host[:port] or smtps://...')
        .optional(),
      // The sender of invitations and password resets: an address, or a name and <address>.
      from: z
        .string()
        .regex(/^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, 'must be an address (dbmon@example.com) or a name and address (dbmon <dbmon@example.com>)')
        .optional(),
    })
    .prefault({}),
  sms: z
    .strictObject({
      // How SMS second-factor codes leave the server; without one, SMS is not offered.
      sender: z.enum(['log', 'webhook', 'twilio']).optional(),
      // The log sender writes codes to the log: refused under NODE_ENV=production unless this says so.
      allow_log_sender_in_production: z.boolean().default(false),
      webhook: z
        .strictObject({
          url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).optional(),
          secret: z.string().regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, 'must be whsec_ and at least 24 bytes in base64').optional(),
        })
        .prefault({}),
      twilio: z
        .strictObject({
          account_sid: z.string().regex(/^AC[0-9a-fA-F]{32}$/, 'must be AC and 32 hex digits').optional(),
          auth_token: z.string().min(1).optional(),
          from: z.string().min(1).optional(),
          base_url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).default('https://api.twilio.com'),
        })
        .prefault({}),
    })
    .prefault({}),
  geoip: z
    .strictObject({
      // A MaxMind-format City or Country database (GeoLite2-City.mmdb): where sessions were signed in from.
      database: z.string().min(1).optional(),
    })
    .prefault({}),
  webhooks: z
    .strictObject({
      // Webhook destinations on loopback, link-local, private or unique-local addresses (on-premise receivers).
      allow_private_targets: z.boolean().default(false),
    })
    .prefault({}),
  // Raw samples must outlive the widest rollup bucket (1 day) so late samples refold exactly.
  retention: z
    .strictObject(byHistoryResolution((resolution) => duration(defaultRetentionDurations[resolution], resolution === 'raw' ? 2 * 86_400_000 : undefined)))
    .prefault({}),
}).superRefine((config, ctx) => {
  if (config.email.smtp_url !== undefined && config.email.from === undefined) {
    ctx.addIssue({ code: 'custom', path: ['email', 'from'], message: 'required with email.smtp_url: the sender of invitations and password resets' });
  }
  const { sms } = config;
  const missing =
    sms.sender === 'webhook'
      ? (['url', 'secret'] as const).filter((key) => sms.webhook[key] === undefined).map((key) => ['webhook', key])
      : sms.sender === 'twilio'
        ? (['account_sid', 'auth_token', 'from'] as const).filter((key) => sms.twilio[key] === undefined).map((key) => ['twilio', key])
        : [];
  for (const path of missing) ctx.addIssue({ code: 'custom', path: ['sms', ...path], message: `required with sms.sender ${sms.sender}` });
  if (config.metrics.token === undefined) {
    const reason = metricsExposure(config.server);
    if (reason !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['metrics', 'token'], message: `${reason}: /metrics would be open to the network; set metrics.token or DBMON_METRICS_TOKEN` });
    }
  }
});

export type ServerConfig = z.output<typeof serverConfigSchema>;

/** Why others than this host's own users can reach the server, if they can: then /metrics needs its token. */
function metricsExposure(server: { host: string; trusted_proxies: string[]; public_url?: string | undefined }): string | undefined {
  if (!isLoopbackHost(server.host)) return `required when the server listens beyond loopback (server.host ${server.host})`;
  if (server.trusted_proxies.length > 0) return 'required behind a reverse proxy (server.trusted_proxies is set)';
  // An unparsable public_url has its own error; its hostname keeps an IPv6 address in brackets.
  const publicHost = server.public_url !== undefined && URL.canParse(server.public_url) ? new URL(server.public_url).hostname.replace(/^\[(.*)\]$/, '$1') : undefined;
  if (publicHost !== undefined && !isLoopbackHost(publicHost)) {
    return `required behind a reverse proxy (server.public_url ${server.public_url} is beyond loopback)`;
  }
  return undefined;
}

/** `server.public_url`, or by default the address and port the server is configured to listen on. */
export function publicUrlOf(config: ServerConfig): string {
  const { host, port, public_url: publicUrl } = config.server;
  return publicUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** `email.smtp_url` and `email.from` when mail is configured. */
export function smtpSettingsOf(config: ServerConfig): SmtpSettings | undefined {
  const { smtp_url: smtpUrl, from } = config.email;
  return smtpUrl === undefined || from === undefined ? undefined : { smtpUrl, from };
}

/** `sms.*` when a sender is configured (the schema has checked that its settings are all there). */
export function smsSettingsOf(config: ServerConfig): SmsSettings | undefined {
  const { sender, webhook, twilio } = config.sms;
  switch (sender) {
    case undefined:
      return undefined;
    case 'log':
      return { sender };
    case 'webhook':
      return { sender, webhook: { url: webhook.url!, secret: webhook.secret! } };
    case 'twilio':
      return { sender, twilio: { accountSid: twilio.account_sid!, authToken: twilio.auth_token!, from: twilio.from!, baseUrl: twilio.base_url } };
  }
}

const bindings: readonly ConfigBinding[] = [
  { path: 'server.host', env: 'DBMON_HOST', flag: 'host', text: true },
  { path: 'server.port', env: 'DBMON_PORT', flag: 'port' },
  { path: 'server.body_limit_bytes', env: 'DBMON_BODY_LIMIT_BYTES' },
  { path: 'server.shutdown_timeout_seconds', env: 'DBMON_SHUTDOWN_TIMEOUT_SECONDS' },
  { path: 'server.trusted_proxies', env: 'DBMON_TRUSTED_PROXIES', text: true },
  { path: 'server.public_url', env: 'DBMON_PUBLIC_URL', text: true },
  { path: 'state_dir', env: 'DBMON_STATE_DIR', flag: 'state-dir', text: true },
  { path: 'secret_key', env: 'DBMON_SECRET_KEY', secret: true, credential: 'secret-key' },
  { path: 'log.level', env: 'DBMON_LOG_LEVEL', flag: 'log-level' },
  { path: 'metrics.token', env: 'DBMON_METRICS_TOKEN', secret: true },
  { path: 'agent.embedded', env: 'DBMON_AGENT_EMBEDDED' },
  { path: 'webhooks.allow_private_targets', env: 'DBMON_WEBHOOKS_ALLOW_PRIVATE_TARGETS' },
  { path: 'email.smtp_url', env: 'DBMON_EMAIL_SMTP_URL', secret: true },
  { path: 'email.from', env: 'DBMON_EMAIL_FROM', text: true },
  { path: 'sms.sender', env: 'DBMON_SMS_SENDER', text: true },
  { path: 'sms.allow_log_sender_in_production', env: 'DBMON_SMS_ALLOW_LOG_SENDER_IN_PRODUCTION' },
  { path: 'sms.webhook.url', env: 'DBMON_SMS_WEBHOOK_URL', text: true },
  { path: 'sms.webhook.secret', env: 'DBMON_SMS_WEBHOOK_SECRET', secret: true },
  { path: 'sms.twilio.account_sid', env: 'DBMON_SMS_TWILIO_ACCOUNT_SID', secret: true },
  { path: 'sms.twilio.auth_token', env: 'DBMON_SMS_TWILIO_AUTH_TOKEN', secret: true },
  { path: 'sms.twilio.from', env: 'DBMON_SMS_TWILIO_FROM', text: true },
  { path: 'sms.twilio.base_url', env: 'DBMON_SMS_TWILIO_BASE_URL', text: true },
  { path: 'geoip.database', env: 'DBMON_GEOIP_DATABASE', text: true },
  { path: 'api_keys.max_live_per_organization', env: 'DBMON_API_KEYS_MAX_LIVE_PER_ORGANIZATION' },
  { path: 'agent.spool_max_samples', env: 'DBMON_AGENT_SPOOL_MAX_SAMPLES' },
  ...historyResolutions.map((resolution) => ({ path: `retention.${resolution}`, env: `DBMON_RETENTION_${resolution.toUpperCase()}` })),
];

export const serverConfigFlags = {
  config: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  'state-dir': { type: 'string' },
  'log-level': { type: 'string' },
} as const;

/** Reads defaults < YAML (--config or DBMON_CONFIG) < systemd credentials (secret-key) < DBMON_* environment < flags, validated once. */
export function loadServerConfig(flags: Record<string, string | undefined>, env: NodeJS.ProcessEnv): ServerConfig {
  const yamlPath = flags.config ?? (env.DBMON_CONFIG || undefined);
  const config = loadLayeredConfig(serverConfigSchema, bindings, { yamlPath, env, flags });
  if (config.sms.sender === 'log' && env.NODE_ENV === 'production' && !config.sms.allow_log_sender_in_production) {
    throw new ConfigError('sms.sender', 'log writes sign-in codes to the log and is refused with NODE_ENV=production; choose webhook or twilio, or set sms.allow_log_sender_in_production: true');
  }
  return Object.freeze({ ...config, state_dir: resolve(config.state_dir) });
}

export function parseServerFlags(argv: string[]): Record<string, string | undefined> {
  return parseArgs({ args: argv, options: serverConfigFlags, strict: true, allowPositionals: false }).values;
}

export interface WeakenedDefault {
  setting: string;
  risk: string;
}

/** The settings in force that are weaker than the safe default, each with what it exposes; the start-up log names them. */
export function weakenedDefaults(config: ServerConfig): WeakenedDefault[] {
  const weakened: WeakenedDefault[] = [];
  if (config.metrics.token === undefined) {
    weakened.push({ setting: 'metrics.token', risk: 'GET /metrics answers without a token to every local process and user; set metrics.token to require one' });
  }
  if (config.server.trusted_proxies.some((entry) => parseAddressRange(entry)?.prefix === 0)) {
    weakened.push({
      setting: 'server.trusted_proxies',
      risk: 'a range covers every address, so any client can choose the address it is rate-limited and allowed by (X-Forwarded-For)',
    });
  }
  if (config.sms.sender === 'log') {
    weakened.push({ setting: 'sms.sender', risk: 'SMS second-factor codes are written to the log instead of being sent: whoever reads the log passes that factor' });
  }
  if (config.webhooks.allow_private_targets) {
    weakened.push({
      setting: 'webhooks.allow_private_targets',
      risk: 'webhooks may be sent to loopback, link-local and private addresses: this host, internal services, cloud metadata endpoints',
    });
  }
  return weakened;
}
