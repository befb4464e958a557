import { AGENT_MARKER, AGENT_NAME, type ConnectionSettings } from './connection-settings.js';
import { createMysqlConnection } from './mysql-driver.js';
import { checkMysqlSchema } from './mysql-schema-check.js';
import type { MysqlFlavor } from './mysql-source.js';
import { textOf, type Row } from './row.js';
import type { SessionOptions, SqlSession } from './sql-session.js';

export interface MysqlSession extends SqlSession {
  readonly flavor: MysqlFlavor;
  /** The monitored database: the session has no default schema, so statements name it. */
  readonly schema: string;
  /**
   * Runs one statement with the monitored database as the default schema (an application's
   * statement names its tables without their schema), in a transaction (read-only when asked)
   * that is never committed, under this session's sql_mode. It runs on a connection of its own
   * that ends right after, rolling the transaction back: leaving the schema would take a
   * statement performance_schema files under it, so this one statement is the only one there.
   */
  queryInSchema(sql: string, transaction: { readOnly: boolean }): Promise<Row[]>;
}

/** sql_mode flags that move where quoted text ends, and the combination modes that would bring ANSI_QUOTES back. */
const lexerFlags = new Set(['ANSI_QUOTES', 'NO_BACKSLASH_ESCAPES', 'ANSI', 'DB2', 'MAXDB', 'MSSQL', 'ORACLE', 'POSTGRESQL']);

/**
 * The sql_mode without the flags that change how the server lexes quotes: the statement guard
 * and mysql2's escaping of values (with backslashes) both assume them off. The rest of the
 * server's mode stays, so statements are planned as the application ran them.
 */
export function lexerNeutralSqlMode(sqlMode: string): string {
  return sqlMode
    .split(',')
    .filter((flag) => flag !== '' && !lexerFlags.has(flag.toUpperCase()))
    .join(',');
}

/**
 * A dedicated MySQL/MariaDB session: one statement per call (multipleStatements off), quotes
 * lexed the default way (no ANSI_QUOTES, no NO_BACKSLASH_ESCAPES), and no default schema:
 * performance_schema files each statement under the session's default schema, so the agent's
 * statements stay out of the monitored database's slow queries and query rate whatever its
 * grants (turning off the session's instrumentation needs UPDATE on performance_schema.threads).
 */
export async function openMysqlSession(settings: ConnectionSettings, options: SessionOptions): Promise<MysqlSession> {
  options.signal?.throwIfAborted();
  const connection = await createMysqlConnection({
    host: settings.host,
    port: settings.port,
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
    const [mode] = await run('SELECT @@SESSION.sql_mode AS mode');
    await run('SET SESSION sql_mode = ?', [lexerNeutralSqlMode(textOf(mode?.mode))]);
    await run("UPDATE performance_schema.threads SET INSTRUMENTED = 'NO' WHERE PROCESSLIST_ID = CONNECTION_ID()").catch(() => undefined);
    await checkMysqlSchema(run, settings);
    const queryInSchema = async (sql: string, { readOnly }: { readOnly: boolean }): Promise<Row[]> => {
      const [current] = await run('SELECT @@SESSION.sql_mode AS mode');
      const own = await openMysqlSession(settings, options);
      try {
        await own.query('SET SESSION sql_mode = ?', [textOf(current?.mode)]);
        await own.query(readOnly ? 'START TRANSACTION READ ONLY' : 'START TRANSACTION');
        await own.query(`USE ${connection.escapeId(settings.database)}`);
        return await own.query(sql);
      } finally {
        await own.close();
      }
    };
    return { flavor, schema: settings.database, query: run, queryInSchema, close };
  } catch (error) {
    await close();
    throw error;
  }
}
