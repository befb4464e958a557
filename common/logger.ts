import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import { prettyLogStream } from './pretty-log-stream.js';
import { redactSecrets } from './redact-secrets.js';

export type { Logger } from 'pino';

/**
 * One logger per process; components take children of it. JSON lines to stdout (for journald and log
 * shippers) unless told otherwise; human-readable lines when stdout is a terminal.
 */
export function createLogger(level: LevelWithSilent, destination?: DestinationStream): Logger {
  const out = destination ?? (process.stdout.isTTY ? prettyLogStream(process.stdout, { colors: process.stdout.hasColors() }) : undefined);
  return pino(
    {
      level,
      base: { pid: process.pid },
      // Secret fields of a record are replaced at any depth; errors are serialized on the way. pino writes
      // child bindings as given, so they hold ids and names only.
      formatters: { log: (record) => redactSecrets(record) as Record<string, unknown> },
      serializers: { err: (error: unknown) => redactSecrets(error) },
    },
    out,
  );
}
