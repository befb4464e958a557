import type { Row } from './row.js';

/**
 * One dedicated connection for work that needs a session of its own: a transaction that must
 * stay on one connection, a session-level advisory lock, a long index build. Unlike a source it
 * never reconnects behind the caller's back: once it breaks, every later query fails.
 */
export interface SqlSession {
  query(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

export interface SessionOptions {
  /** The engine cancels a statement that runs longer; 0 for no limit. */
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  /** Aborting closes the connection, which cancels the statement in flight. */
  signal?: AbortSignal;
}
