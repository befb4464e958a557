import { closeSync, fsyncSync, openSync } from 'node:fs';
import { open } from 'node:fs/promises';

/** Flushes a file's data, or a directory's entries (so a rename or a new file in it survives a crash). */
export function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The same for a file, without holding the event loop: the fsync runs in libuv's thread pool. */
export async function fsyncFileInBackground(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
