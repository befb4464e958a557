import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import type { ConnectionSettings } from '../../agent/sources/connection-settings.js';
import { retryWhileStarting } from './retry-while-starting.js';

const SERVER = { host: '127.0.0.1', port: 3306, user: 'root', password: '' };

/** A database of its own for one test file, on the local MariaDB; drop() removes it. */
export interface ThrowawayMysqlDatabase {
  name: string;
  settings: ConnectionSettings;
  /** A plain connection on the database for the test's own load; drop() ends any still open. */
  connect(): Promise<mysql.Connection>;
  /** Runs one statement on the server, outside the throwaway database. */
  admin(sql: string, params?: unknown[]): Promise<mysql.RowDataPacket[]>;
  drop(): Promise<void>;
}

export async function createThrowawayMysqlDatabase(): Promise<ThrowawayMysqlDatabase> {
  const name = `dbmon_test_${randomBytes(6).toString('hex')}`;
  const connections = new Set<mysql.Connection>();
  const admin = async (sql: string, params: unknown[] = []): Promise<mysql.RowDataPacket[]> => {
    const connection = await mysql.createConnection(SERVER);
    try {
      const [rows] = await connection.query<mysql.RowDataPacket[]>(sql, params);
      return rows;
    } finally {
      await connection.end();
    }
  };
  await retryWhileStarting(() => admin(`CREATE DATABASE \`${name}\``));
  return {
    name,
    settings: { host: SERVER.host, port: SERVER.port, database: name, username: SERVER.user, password: SERVER.password, ssl: false },
    async connect() {
      const connection = await mysql.createConnection({ ...SERVER, database: name });
      connections.add(connection);
      return connection;
    },
    admin,
    async drop() {
      await Promise.all([...connections].map((connection) => connection.end().catch(() => undefined)));
      await admin(`DROP DATABASE IF EXISTS \`${name}\``);
    },
  };
}
