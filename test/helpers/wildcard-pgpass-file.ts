import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp-dir.js';

/** A pgpass file (for PGPASSFILE) whose one entry gives `password` for every host, port, database and user. */
export function wildcardPgpassFile(t: { teardown(fn: () => unknown): void }, password: string): string {
  const file = join(tempDir(t, 'dbmon-pgpass-'), 'pgpass');
  // libpq and node-postgres ignore a pgpass file that others may read.
  writeFileSync(file, `*:*:*:*:${password}\n`, { mode: 0o600 });
  return file;
}
