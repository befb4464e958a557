import { connect } from 'node:net';

/** The protocol's request code of a CancelRequest. */
const cancelRequestCode = 80877102;

/** What the server told a session at its start (BackendKeyData): enough to cancel what it runs. */
export interface BackendKey {
  processID: number | null;
  secretKey: number | null;
}

/**
 * Asks PostgreSQL to cancel the statement a session runs: the protocol's CancelRequest, sent on a
 * connection of its own and naming the session by process id and secret key. Closing the
 * session's socket alone does not stop a pg_sleep or a lock wait. No answer comes and failures are
 * ignored: the engine's statement timeout stays the backstop.
 */
export function sendCancelRequest(target: { host: string; port: number }, key: BackendKey, timeoutMs: number): void {
  if (key.processID === null || key.secretKey === null) return;
  const message = Buffer.alloc(16);
  message.writeInt32BE(16, 0);
  message.writeInt32BE(cancelRequestCode, 4);
  message.writeInt32BE(key.processID, 8);
  message.writeInt32BE(key.secretKey, 12);
  // A host starting with / is the directory of the server's Unix socket, as libpq and pg read it.
  const socket = target.host.startsWith('/') ? connect({ path: `${target.host}/.s.PGSQL.${target.port}` }) : connect({ host: target.host, port: target.port });
  socket.setTimeout(timeoutMs, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.once('connect', () => socket.end(message));
}
