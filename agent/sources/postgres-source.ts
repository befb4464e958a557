import { pg } from './pg-driver.js';
import type { Pingable } from '../collection/collector.js';
import { abortable } from './abortable.js';
import { AGENT_MARKER, type ConnectionSettings, type SourceOptions } from './connection-settings.js';
import { sendCancelRequest, type BackendKey } from './postgres-cancel-request.js';
import { postgresClientConfig } from './postgres-client-config.js';
import type { Row } from './row.js';

interface Session {
  client: pg.Client;
  ready: Promise<unknown>;
}

/**
 * One connection to one PostgreSQL database, opened on first use and reopened on the next use
 * after it broke, so the agent recovers by itself when the database comes back.
 */
export class PostgresSource implements Pingable {
  #session: Session | null = null;

  constructor(
    private readonly settings: ConnectionSettings,
    private readonly options: SourceOptions,
  ) {}

  async query(sql: string, params: readonly unknown[], signal: AbortSignal): Promise<Row[]> {
    signal.throwIfAborted();
    const session = this.#open();
    const discard = (): void => this.#discard(session);
    try {
      await abortable(session.ready, signal, discard);
      const result = await abortable(
        session.client.query<Row>(`${AGENT_MARKER} ${sql}`, [...params]),
        signal,
        () => this.#cancel(session),
      );
      return result.rows;
    } catch (error) {
      if (breaksSession(error)) discard();
      throw error;
    }
  }

  /** Not `SELECT 1`: pg_stat_statements would file the application's `SELECT 1` under this one. */
  async ping(signal: AbortSignal): Promise<void> {
    await this.query('SELECT pg_backend_pid()', [], signal);
  }

  async close(): Promise<void> {
    const session = this.#session;
    this.#session = null;
    if (session !== null) await session.client.end().catch(() => undefined);
  }

  #open(): Session {
    if (this.#session !== null) return this.#session;
    const client = new pg.Client(postgresClientConfig(this.settings, this.options));
    const session: Session = { client, ready: client.connect() };
    // Without a listener, a server-side disconnect of an idle client would crash the process.
    client.on('error', () => this.#discard(session));
    session.ready.catch(() => this.#discard(session));
    this.#session = session;
    return session;
  }

  /** On abort: the server cancels the running statement, and the session is dropped. */
  #cancel(session: Session): void {
    // pg keeps the session's BackendKeyData in these two fields, which its types do not declare.
    const { processID, secretKey } = session.client as unknown as BackendKey;
    sendCancelRequest(this.settings, { processID, secretKey }, this.options.connectTimeoutMs);
    this.#discard(session);
  }

  #discard(session: Session): void {
    if (this.#session === session) this.#session = null;
    session.client.end().catch(() => undefined);
  }
}

/** Errors the server answered with leave the session usable, except connection and shutdown ones. */
function breaksSession(error: unknown): boolean {
  if (!(error instanceof pg.DatabaseError)) return true;
  const code = error.code ?? '';
  return code.startsWith('08') || code.startsWith('57P');
}
