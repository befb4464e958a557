import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { ConnectionSettings } from '../../agent/sources/connection-settings.js';
import { retryWhileStarting } from './retry-while-starting.js';

const SERVER = { host: '127.0.0.1', port: 5432, user: 'postgres' };

/** A database of its own for one test file, on the local PostgreSQL; drop() removes it. */
export interface ThrowawayPostgresDatabase {
  name: string;
  settings: ConnectionSettings;
  /** A plain client on the database for the test's own load; drop() ends any still open. */
  connect(): Promise<pg.Client>;
  /** Runs one statement on the server's postgres database. */
  admin(sql: string, params?: unknown[]): Promise<pg.QueryResult>;
  drop(): Promise<void>;
}

export async function createThrowawayPostgresDatabase(): Promise<ThrowawayPostgresDatabase> {
  const name = `dbmon_test_${randomBytes(6).toString('hex')}`;
  const clients = new Set<pg.Client>();
  const admin = async (sql: string, params: unknown[] = []): Promise<pg.QueryResult> => {
    const client = new pg.Client({ ...SERVER, database: 'postgres' });
    await client.connect();
    try {
      return await client.query(sql, params);
    } finally {
      await client.end();
    }
  };
  await retryWhileStarting(() => admin(`CREATE DATABASE ${name}`));
  return {
    name,
    settings: { host: SERVER.host, port: SERVER.port, database: name, username: SERVER.user, password: null, ssl: false },
    async connect() {
      const client = new pg.Client({ ...SERVER, database: name });
      clients.add(client);
      await client.connect();
      return client;
    },
    admin,
    async drop() {
      await Promise.all([...clients].map((client) => client.end().catch(() => undefined)));
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
