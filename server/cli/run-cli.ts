import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ConfigError } from '../../common/config-loader.js';
import { parseDuration } from '../../common/duration.js';
import { packageVersion } from '../../common/package-version.js';
import { hashPassword } from '../auth/passwords/password-hash.js';
import { plans } from '../auth/identity/plans.js';
import { accessLevels, roles, scopes } from '../auth/permissions.js';
import { loadServerConfig, serverConfigFlags } from '../config.js';
import { ApiError } from '../errors.js';
import { presentApiKey } from '../auth/api-keys/api-key-presenter.js';
import { composeServices, type ServerServices } from '../compose-services.js';
import { databaseFileName, openStateDir } from '../state-dir.js';
import { migrate } from '../storage/migrate.js';
import { MissingDatabaseError, StorageError } from '../storage/storage-errors.js';
import { backupCommand, restoreCommand } from './backup-commands.js';
import { checkDatabaseCommand } from './check-database-command.js';
import { listApiKeys, listOrganizations, listUsers } from './list-commands.js';

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  readStdin: () => Promise<string>;
  now: () => Date;
}

class UsageError extends Error {}

const usage = `Usage: dbmon <command> [options]   (global: --config FILE, --state-dir DIR, as for dbmon-server)
  orgs create --name NAME [--plan free|pro|enterprise] [--hourly-limit N]
  orgs list [--json]
  orgs set --org ORG_ID --auto-apply-optimizations true|false
  users create --org ORG_ID --email EMAIL --role owner|admin|member|viewer [--name NAME] [--password-stdin]
  users list [--org ORG_ID] [--json]
  keys create --org ORG_ID --name NAME --permission read|write (--service-account NAME | --user EMAIL)
              [--scopes a,b,...] [--expires-in 90d] [--json]
  keys list [--org ORG_ID] [--json]
  keys revoke KEY_ID
  databases check DB_ID   (the agent user's grants and settings on a database of the embedded agent;
                           exit 1 when something is missing)
  config validate
  migrate                 (copies a database that has data to <state dir>/backups/ first)
  backup FILE [--force]   (online, consistent copy of the database; safe while the server runs)
  restore FILE            (replaces the database with a checked backup; the server must be stopped)
  --version
Only migrate, orgs create and restore create a state directory; the others need an existing one.`;

const commands = new Set(['orgs create', 'orgs list', 'orgs set', 'users create', 'users list', 'keys create', 'keys list', 'keys revoke', 'databases check', 'config validate', 'migrate', 'backup', 'restore']);
/** Commands that may start a new state directory; every other one refuses to create one. */
const createsStateDir = new Set(['migrate', 'orgs create', 'restore']);

const commandFlags = {
  ...serverConfigFlags,
  name: { type: 'string' },
  plan: { type: 'string' },
  'hourly-limit': { type: 'string' },
  org: { type: 'string' },
  email: { type: 'string' },
  role: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  permission: { type: 'string' },
  'service-account': { type: 'string' },
  user: { type: 'string' },
  scopes: { type: 'string' },
  'expires-in': { type: 'string' },
  'auto-apply-optimizations': { type: 'string' },
  json: { type: 'boolean' },
  force: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

type Flags = ReturnType<typeof parseFlags>['values'];

function parseFlags(argv: string[]) {
  return parseArgs({ args: argv, options: commandFlags, strict: true, allowPositionals: true });
}

/** The operator CLI; works on the state directory directly. Returns the process exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv);
  } catch (error) {
    io.stderr(`dbmon: ${(error as Error).message}\n${usage}`);
    return 2;
  }
  const { values: flags, positionals } = parsed;
  const command = positionals.slice(0, 2).join(' ');
  if (flags.version) {
    io.stdout(`dbmon ${packageVersion()}`);
    return 0;
  }
  if (flags.help || positionals.length === 0) {
    io.stdout(usage);
    return positionals.length === 0 && !flags.help ? 2 : 0;
  }
  const name = positionals[0] === 'backup' || positionals[0] === 'restore' ? positionals[0] : command;
  if (!commands.has(name)) {
    io.stderr(`dbmon: unknown command: ${command}\n${usage}`);
    return 2;
  }
  const [, file, extra] = positionals;
  if ((name === 'backup' || name === 'restore') && (file === undefined || extra !== undefined)) {
    io.stderr(`dbmon: ${name} needs exactly one FILE\n${usage}`);
    return 2;
  }
  try {
    const config = loadServerConfig({ config: flags.config, 'state-dir': flags['state-dir'] }, io.env);
    if (command === 'config validate') {
      io.stdout(`configuration is valid (state directory ${config.state_dir})`);
      return 0;
    }
    io.stderr(`dbmon: state directory ${config.state_dir}`);
    const databaseFile = join(config.state_dir, databaseFileName);
    if (!createsStateDir.has(name) && !existsSync(databaseFile)) {
      throw new MissingDatabaseError(databaseFile, `"dbmon ${name}" does not create one (give --state-dir, DBMON_STATE_DIR or state_dir in --config)`);
    }
    if (name === 'backup') return await backupCommand(config.state_dir, file!, { force: flags.force === true }, io);
    if (name === 'restore') return restoreCommand(config.state_dir, file!, io);
    const { db, secretKey } = openStateDir(config.state_dir, config.secret_key);
    try {
      const applied = migrate(db, undefined, io.now(), { onBackup: (file) => io.stderr(`dbmon: backed up the database to ${file} before migrating`) });
      if (command === 'migrate') {
        io.stdout(applied.length === 0 ? 'schema is up to date' : `applied ${applied.map((m) => `${m.version}-${m.name}`).join(', ')}`);
        return 0;
      }
      const { services } = composeServices(db, secretKey, { maxLiveApiKeysPerOrganization: config.api_keys.max_live_per_organization });
      return await runCommand(command, positionals.slice(2), flags, services, io);
    } finally {
      db.close();
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`dbmon: ${error.message}\n${usage}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      io.stderr(`dbmon: invalid configuration: ${error.message}`);
      return 78;
    }
    if (error instanceof StorageError) {
      io.stderr(`dbmon: ${error.message}`);
      return error.exitCode;
    }
    if (error instanceof ApiError) {
      io.stderr(`dbmon: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

async function runCommand(command: string, args: string[], flags: Flags, services: ServerServices, io: CliIo): Promise<number> {
  const now = io.now();
  switch (command) {
    case 'orgs create': {
      const hourlyLimit = flags['hourly-limit'] === undefined ? null : option('hourly-limit', z.coerce.number().int().min(1), flags['hourly-limit']);
      const organization = services.identity.createOrganization(
        {
          name: option('name', z.string().trim().min(1).max(100), flags.name),
          plan: option('plan', z.enum(plans), flags.plan ?? 'free'),
          customHourlyLimit: hourlyLimit,
        },
        now,
      );
      io.stdout(organization.id);
      return 0;
    }
    case 'orgs set': {
      const orgId = option('org', z.string(), flags.org);
      services.identity.requireOrganization(orgId);
      const allowed = option('auto-apply-optimizations', z.enum(['true', 'false']), flags['auto-apply-optimizations']) === 'true';
      services.optimizations.setAutoApply(orgId, allowed);
      io.stdout(`${orgId}: auto-apply-optimizations ${allowed}`);
      return 0;
    }
    case 'users create': {
      const passwordHash = flags['password-stdin'] ? await hashPassword(option('password', z.string().min(12), (await io.readStdin()).replace(/\r?\n$/, ''))) : undefined;
      const user = services.identity.createUser(
        {
          orgId: option('org', z.string(), flags.org),
          email: option('email', z.email(), flags.email),
          role: option('role', z.enum(roles), flags.role),
          ...(flags.name !== undefined && { name: flags.name }),
          ...(passwordHash !== undefined && { passwordHash }),
        },
        now,
      );
      io.stdout(user.id);
      return 0;
    }
    case 'keys create': {
      const orgId = option('org', z.string(), flags.org);
      services.identity.requireOrganization(orgId);
      const permission = option('permission', z.enum(accessLevels), flags.permission);
      if ((flags['service-account'] === undefined) === (flags.user === undefined)) {
        throw new UsageError('give exactly one of --service-account NAME or --user EMAIL');
      }
      const owner =
        flags.user === undefined
          ? {
              kind: 'service_account' as const,
              serviceAccountId: services.identity.serviceAccount(orgId, flags['service-account']!, permission, now).id,
            }
          : { kind: 'personal' as const, userId: services.identity.requireUser(orgId, flags.user).id };
      const expiresIn = flags['expires-in'] === undefined ? undefined : parseDuration(flags['expires-in']);
      if (flags['expires-in'] !== undefined && expiresIn === undefined) {
        throw new UsageError('--expires-in must be a duration such as 90d, 12h or 30m');
      }
      const key = services.apiKeys.create(
        orgId,
        owner,
        {
          name: option('name', z.string().trim().min(1).max(100), flags.name),
          permission,
          scopes: flags.scopes === undefined ? undefined : option('scopes', z.array(z.enum(scopes)).min(1), flags.scopes.split(',')),
          expires_at: expiresIn === undefined ? undefined : new Date(now.getTime() + expiresIn).toISOString(),
        },
        now,
      );
      io.stdout(flags.json ? JSON.stringify({ ...presentApiKey(key.row), org_id: key.row.org_id, key: key.value }) : key.value);
      return 0;
    }
    case 'orgs list':
      listOrganizations(services.identity, listOptions(flags, now), io.stdout);
      return 0;
    case 'users list':
      listUsers(services.identity, listOptions(flags, now), io.stdout);
      return 0;
    case 'keys list':
      listApiKeys(services.apiKeys, listOptions(flags, now), io.stdout);
      return 0;
    case 'databases check': {
      const [id, extra] = args;
      if (id === undefined || extra !== undefined) throw new UsageError('databases check needs exactly one DB_ID');
      return checkDatabaseCommand(services.databases, id, io.stdout);
    }
    case 'keys revoke': {
      const [id] = args;
      if (id === undefined) throw new UsageError('keys revoke needs the key id');
      services.apiKeys.revoke(id, now);
      io.stdout(`revoked ${id}`);
      return 0;
    }
    default:
      throw new Error(`no handler for ${command}`);
  }
}

function listOptions(flags: Flags, now: Date) {
  return { orgId: flags.org ?? null, json: flags.json === true, now };
}

function option<S extends z.ZodType>(name: string, schema: S, value: unknown): z.output<S> {
  if (value === undefined) throw new UsageError(`--${name} is required`);
  const result = schema.safeParse(value);
  if (!result.success) throw new UsageError(`--${name}: ${result.error.issues[0]!.message}`);
  return result.data;
}
