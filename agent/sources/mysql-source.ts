import type mysql from 'mysql2/promise';
import type { Pingable } from '../collection/collector.js';
import { abortable } from './abortable.js';
import { AGENT_MARKER, AGENT_NAME, type ConnectionSettings, type SourceOptions } from './connection-settings.js';
import { createMysqlConnection } from './mysql-driver.js';
import { checkMysqlSchema } from './mysql-schema-check.js';
import type { Row } from './row.js';

export type MysqlFlavor = 'mysql' | 'mariadb';

interface Opened {
  connection: mysql.Connection;
  flavor: MysqlFlavor;
}

interface Session {
  ready: Promise<Opened>;
}

/**
 * One connection to one MySQL or MariaDB server, opened on first use and reopened on the next
 * use after it broke, so the agent recovers by itself when the server comes back.
 *
 * The connection has no default schema: performance_schema files each statement under the
 * session's default schema, so the agent's own statements stay out of the monitored database's
 * digests whatever its grants (digest texts drop comments, so the marker cannot do that, and
 * turning off the session's instrumentation needs UPDATE on performance_schema.threads).
 * Statements name the monitored database by `schema`.
 */
export class MysqlSource implements Pingable {
  #session: Session | null = null;

  constructor(
    private readonly settings: ConnectionSettings,
    private readonly options: SourceOptions,
  ) {}

  /** The monitored database. */
  get schema(): string {
    return this.settings.database;
  }

  async query(sql: string, params: readonly unknown[], signal: AbortSignal): Promise<Row[]> {
    signal.throwIfAborted();
    const session = this.#open();
    const discard = (): void => this.#discard(session);
    try {
      const { connection } = await abortable(session.ready, signal, discard);
      const [rows] = await abortable(
        connection.query({ sql: `${AGENT_MARKER} ${sql}`, values: [...params] }),
        signal,
        () => this.#cancel(session, connection.threadId),
      );
      return rows as Row[];
    } catch (error) {
      if (breaksSession(error)) discard();
      throw error;
    }
  }

  async flavor(signal: AbortSignal): Promise<MysqlFlavor> {
    signal.throwIfAborted();
    const session = this.#open();
    return (await abortable(session.ready, signal, () => this.#discard(session))).flavor;
  }

  async ping(signal: AbortSignal): Promise<void> {
    await this.query('SELECT CONNECTION_ID()', [], signal);
  }

  async close(): Promise<void> {
    const session = this.#session;
    this.#session = null;
    if (session === null) return;
    const opened = await session.ready.catch(() => null);
    await opened?.connection.end().catch(() => undefined);
  }

  #open(): Session {
    if (this.#session !== null) return this.#session;
    const session: Session = { ready: this.#connect(() => this.#discard(session)) };
    session.ready.catch(() => this.#discard(session));
    this.#session = session;
    return session;
  }

  #connectionOptions(): mysql.ConnectionOptions {
    const { host, port, username, password, ssl } = this.settings;
    return {
      host,
      port,
      user: username,
      password: password ?? undefined,
      ...(ssl && { ssl: {} }),
      connectTimeout: this.options.connectTimeoutMs,
      connectAttributes: { program_name: AGENT_NAME },
    };
  }

  async #connect(onBroken: () => void): Promise<Opened> {
    const connection = await createMysqlConnection(this.#connectionOptions());
    // Without a listener, a server-side disconnect of an idle connection would crash the process.
    connection.on('error', onBroken);
    try {
      const [rows] = await connection.query(`${AGENT_MARKER} SELECT VERSION() AS version`);
      const version = String((rows as Row[])[0]?.version);
      const flavor: MysqlFlavor = version.includes('MariaDB') ? 'mariadb' : 'mysql';
      await connection.query(`${AGENT_MARKER} ${this.#timeoutStatement(flavor)}`);
      await checkMysqlSchema(async (sql, params) => (await connection.query(`${AGENT_MARKER} ${sql}`, [...params]))[0] as Row[], this.settings);
      return { connection, flavor };
    } catch (error) {
      connection.destroy();
      throw error;
    }
  }

  #timeoutStatement(flavor: MysqlFlavor): string {
    const ms = Math.round(this.options.statementTimeoutMs);
    return flavor === 'mariadb'
      ? `SET SESSION max_statement_time = ${ms / 1000}`
      : `SET SESSION MAX_EXECUTION_TIME = ${ms}`;
  }

  /**
   * On abort: the session's thread is killed from a connection of its own (closing the socket
   * alone leaves a SLEEP() or a lock wait running on the server), and the session is dropped.
   */
  #cancel(session: Session, threadId: number): void {
    this.#discard(session);
    const kill = async (): Promise<void> => {
      const killer = await createMysqlConnection(this.#connectionOptions());
      try {
        await killer.query(`${AGENT_MARKER} KILL ?`, [threadId]);
      } finally {
        killer.destroy();
      }
    };
    kill().catch(() => undefined);
  }

  #discard(session: Session): void {
    if (this.#session === session) this.#session = null;
    session.ready.then(
      ({ connection }) => connection.destroy(),
      () => undefined,
    );
  }
}

/** Statement errors leave the connection usable; anything the driver calls fatal does not. */
function breaksSession(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return true;
  const { errno, fatal } = error as { errno?: unknown; fatal?: unknown };
  return typeof errno !== 'number' || fatal === true;
}
