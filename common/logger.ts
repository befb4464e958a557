import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import { prettyLogStream } from './pretty-log-stream.js';

export type { Logger } from 'pino';

/** Paths that may carry secrets; pino replaces their values before anything is written. */
const redactPaths = [
  'password',
  '*.password',
  'connection.password',
  'secret_key',
  'token',
  '*.token',
  'key',
  'api_key',
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
];

/**
 * One logger per process; components take children of it. JSON lines to stdout (for journald and log
 * shippers) unless told otherwise; human-readable lines when stdout is a terminal.
 */
export function createLogger(level: LevelWithSilent, destination?: DestinationStream): Logger {
  const out = destination ?? (process.stdout.isTTY ? prettyLogStream(process.stdout, { colors: process.stdout.hasColors() }) : undefined);
  return pino({ level, redact: { paths: redactPaths, censor: '[redacted]' }, base: { pid: process.pid } }, out);
}
