import { pg } from './pg-driver.js';
import { AGENT_MARKER, type ConnectionSettings } from './connection-settings.js';
import { postgresClientConfig } from './postgres-client-config.js';
import type { Row } from './row.js';
import type { SessionOptions, SqlSession } from './sql-session.js';

/** pg's option for the extended protocol even without parameters; its type definitions lack it. */
const extendedProtocol = { queryMode: 'extended' };

/**
 * A dedicated PostgreSQL session; every statement carries the agent's marker, so slow-query
 * statistics leave it out. Every statement goes over the extended protocol, which takes one
 * statement only: text with a second statement in it is an error, never run.
 */
export async function openPostgresSession(settings: ConnectionSettings, options: SessionOptions): Promise<SqlSession> {
  options.signal?.throwIfAborted();
  const client = new pg.Client(postgresClientConfig(settings, options));
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    options.signal?.removeEventListener('abort', onAbort);
    await client.end().catch(() => undefined);
  };
  const onAbort = (): void => void close();
  // Without a listener, a server-side disconnect would crash the process; the next query fails instead.
  client.on('error', () => undefined);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await client.connect();
  } catch (error) {
    await close();
    throw error;
  }
  return {
    async query(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
      options.signal?.throwIfAborted();
      if (closed) throw new Error('the session is closed');
      const result = await client.query<Row>({ text: `${AGENT_MARKER} ${sql}`, values: [...params], ...extendedProtocol });
      return result.rows;
    },
    close,
  };
}
