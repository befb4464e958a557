import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../common/logger.js';

export interface CapturedLog {
  logger: Logger;
  /** Every line written, parsed. */
  lines: Record<string, unknown>[];
  /** Every line written, as raw JSON text. */
  text: () => string;
}

/** The project's logger writing into memory, so tests can read what was logged. */
export function captureLogger(level: 'debug' | 'info' | 'warn' = 'debug'): CapturedLog {
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      raw.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger(level, sink);
  return {
    logger,
    get lines() {
      lines.splice(0, lines.length, ...raw.map((line) => JSON.parse(line) as Record<string, unknown>));
      return lines;
    },
    text: () => raw.join('\n'),
  };
}
