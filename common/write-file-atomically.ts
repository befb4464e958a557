import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes `data` to `file` owner-only (0600) so that a reader sees either no file or the whole of it,
 * and a crash or power loss right after leaves it on disk: written to `<file>.tmp`, fsynced, renamed
 * over `file`, and the directory fsynced. The temporary file is always created anew (O_EXCL), so a
 * link planted at its path is never followed, and one left by a crash is removed first.
 */
export function writeFileAtomically(file: string, data: string | Uint8Array): void {
  const temporary = `${file}.tmp`;
  removeLeftover(temporary);
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeFileSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
  const directory = openSync(dirname(file), 'r');
  try {
    fsyncSync(directory);
  } finally {
    closeSync(directory);
  }
}

/** unlink removes a link itself, never its target. */
function removeLeftover(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
