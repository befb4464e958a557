import type { DestinationStream } from 'pino';
import { formatLogLine } from './format-log-line.js';

/** A pino destination that writes each JSON line as a human-readable one (for a terminal). */
export function prettyLogStream(out: { write: (text: string) => unknown }, options: { colors: boolean }): DestinationStream {
  return { write: (line: string) => void out.write(formatLogLine(line.replace(/\n$/, ''), options)) };
}
