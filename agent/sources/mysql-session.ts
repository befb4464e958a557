import mysql from 'mysql2/promise';
import { AGENT_MARKER, AGENT_NAME, type ConnectionSettings } from './connection-settings.js';
import type { MysqlFlavor } from './mysql-source.js';
import type { Row } from './row.js';
import type { SessionOptions, SqlSession } from './sql-session.js';

export interface MysqlSession extends SqlSession {
  readonly flavor: MysqlFlavor;
}

/**
 * A dedicated MySQL/MariaDB session: one statement per call (multipleStatements off), not
 * instrumented in performance_schema where the agent may say so, so its statements stay out of
 * the slow queries.
 */
export async function openMysqlSession(settings: ConnectionSettings, options: SessionOptions): Promise<MysqlSession> {
  options.signal?.throwIfAborted();
  const connection = await mysql.createConnection({
    host: settings.host,
    port: settings.port,
    database: settings.database,
    user: settings.username,
    password: settings.password ?? undefined,
    ...(settings.ssl && { ssl: {} }),
    connectTimeout: options.connectTimeoutMs,
    connectAttributes: { program_name: AGENT_NAME },
    multipleStatements: false,
  });
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    options.signal?.removeEventListener('abort', onAbort);
    await connection.end().catch(() => connection.destroy());
  };
  const onAbort = (): void => {
    closed = true;
    connection.destroy();
  };
  connection.on('error', () => undefined);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const run = async (sql: string, params: readonly unknown[] = []): Promise<Row[]> => {
    options.signal?.throwIfAborted();
    if (closed) throw new Error('the session is closed');
    const [rows] = await connection.query({ sql: `${AGENT_MARKER} ${sql}`, values: [...params] });
    return rows as Row[];
  };
  try {
    const version = String((await run('SELECT VERSION() AS version'))[0]?.version);
    const flavor: MysqlFlavor = version.includes('MariaDB') ? 'mariadb' : 'mysql';
    const seconds = options.statementTimeoutMs / 1000;
    await run(flavor === 'mariadb' ? `SET SESSION max_statement_time = ${seconds}` : `SET SESSION MAX_EXECUTION_TIME = ${Math.round(options.statementTimeoutMs)}`);
    await run("UPDATE performance_schema.threads SET INSTRUMENTED = 'NO' WHERE PROCESSLIST_ID = CONNECTION_ID()").catch(() => undefined);
    return { flavor, query: run, close };
  } catch (error) {
    await close();
    throw error;
  }
}
