/**
 * A reason the server cannot start that the operator must fix, with the exit code (sysexits.h) it
 * stops with, so systemd and scripts can tell the causes apart. Exit codes are listed in docs/operations.md.
 */
export class StartUpError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

const exitNoHost = 68;
const exitUnavailable = 69;
const exitNoPermission = 77;

/** What listen() failed with, as a StartUpError when it is a known cause; otherwise the error itself. */
export function listenError(error: unknown, host: string, port: number): unknown {
  const where = `cannot listen on ${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new StartUpError(`${where}: the port is in use by another process; stop it or set server.port (DBMON_PORT)`, exitUnavailable);
    case 'EADDRNOTAVAIL':
      return new StartUpError(`${where}: the address is not available on this host; set server.host (DBMON_HOST) to one of its addresses`, exitNoHost);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new StartUpError(`${where}: the host name does not resolve; set server.host (DBMON_HOST) to an address of this host`, exitNoHost);
    case 'EACCES':
      return new StartUpError(`${where}: permission denied (ports below 1024 need privileges); set server.port (DBMON_PORT)`, exitNoPermission);
    default:
      return error;
  }
}

const permissionCodes = new Set(['EACCES', 'EPERM', 'EROFS', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_READONLY_DIRECTORY', 'SQLITE_PERM']);

/** What opening the state directory failed with, as a StartUpError when the server may not write there; otherwise the error itself. */
export function stateDirError(error: unknown, stateDir: string): unknown {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !permissionCodes.has(code)) return error;
  const user = process.getuid === undefined ? '' : ` (uid ${process.getuid()})`;
  return new StartUpError(
    `cannot use the state directory ${stateDir}: permission denied (${code}); it must be writable by the user the server runs as${user}`,
    exitNoPermission,
  );
}
