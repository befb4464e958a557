import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

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

/** One logger per process; components take children of it. JSON lines to stdout unless told otherwise. */
export function createLogger(level: LevelWithSilent, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: redactPaths, censor: '[redacted]' }, base: { pid: process.pid } }, destination);
}
