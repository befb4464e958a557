import { z } from 'zod';

/**
 * Why a collection could not reach its database, as a stable code a snapshot carries in
 * `error_code` and the server keeps in the database's `last_error.code`.
 */
export const collectionErrorCodes = [
  'timeout',
  'connection_refused',
  'host_not_found',
  'host_unreachable',
  'connection_reset',
  'tls_error',
  'authentication_failed',
  'database_not_found',
  'too_many_connections',
  'server_starting',
  'collection_failed',
] as const;
export type CollectionErrorCode = (typeof collectionErrorCodes)[number];

/** What the server accepts as a collection error code: any well-formed one, so a newer agent's codes pass. */
export const collectionErrorCodeFormat = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/);

/** The code of a 409 to a job result: the database's connection changed after the job was leased. */
export const connectionChangedCode = 'connection_changed';

/**
 * Whether an answer to a result report means the server will never take that result: 404 (the
 * lease is gone: expired, or the database moved to another agent), 400 (the body is refused), or
 * `connection_changed` (the database's connection changed after the job was leased, so the result
 * is of another database). Neither passes on retry.
 */
export function refusesResult(status: number, code: string | undefined): boolean {
  return status === 404 || status === 400 || code === connectionChangedCode;
}

/** The server's error body as the agent reads it: codes and types are strings, so a newer server's are read too. */
export const agentErrorBody = z.object({
  error: z.object({ type: z.string(), message: z.string(), code: z.string().optional(), retry_after: z.number().optional() }),
});
