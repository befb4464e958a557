import type pg from 'pg';
import { AGENT_NAME, type ConnectionSettings, type SourceOptions } from './connection-settings.js';

/** The database asked for a password and the server assigned its connection without one. */
export class NoStoredPasswordError extends Error {
  constructor(settings: ConnectionSettings) {
    super(
      `${settings.host}:${settings.port} asked for a password for ${settings.username} and none is stored for this database ` +
        '(a database the server assigns never uses PGPASSWORD or a pgpass file of the agent host)',
    );
    this.name = 'NoStoredPasswordError';
  }
}

/**
 * node-postgres's options for one of the agent's connections. What they leave out, or leave empty,
 * pg takes from the process: PGPASSWORD or the pgpass file (PGPASSFILE, ~/.pgpass) for the
 * password, PGUSER, PGDATABASE, PGHOST, PGPORT, PGSSLMODE, PGSSLNEGOTIATION for the rest. Only a
 * database of the agent's own config file may use that; for one the server assigns, every one of
 * these is stated, and the password is a function, which pg asks instead of the environment and
 * the pgpass file.
 */
export function postgresClientConfig(settings: ConnectionSettings, options: SourceOptions): pg.ClientConfig {
  const common: pg.ClientConfig = {
    host: settings.host,
    port: settings.port,
    user: settings.username,
    ssl: settings.ssl,
    application_name: AGENT_NAME,
    statement_timeout: options.statementTimeoutMs,
    connectionTimeoutMillis: options.connectTimeoutMs,
    keepAlive: true,
  };
  if (settings.ambientCredentials === true) return { ...common, database: settings.database, password: settings.password ?? undefined };
  const { password } = settings;
  return {
    ...common,
    // Left empty, pg would take PGDATABASE; PostgreSQL's own default is the user's name.
    database: settings.database === '' ? settings.username : settings.database,
    password: () => {
      if (password === null || password === undefined) throw new NoStoredPasswordError(settings);
      return password;
    },
    sslnegotiation: 'postgres',
  };
}
