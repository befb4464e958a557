import { closeSync, fsyncSync, openSync } from 'node:fs';

/** Flushes a file's data, or a directory's entries (so a rename or a new file in it survives a crash). */
export function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
