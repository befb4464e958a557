import { chmodSync, closeSync, openSync, statSync } from 'node:fs';

/**
 * Takes group and other access off `path` (a file or a directory) if it has any; the owner's bits
 * stay as they are, so a mode the operator made stricter (0400) is kept. A missing path is left
 * missing, and a path of another owner as it is.
 */
export function restrictToOwner(path: string): void {
  let stat: { mode: number; uid: number };
  try {
    stat = statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const mode = stat.mode & 0o777;
  // Only the owner (or root) may chmod: a directory the operator shares with the service's group is theirs to set.
  const uid = process.getuid?.();
  if (uid !== undefined && uid !== 0 && uid !== stat.uid) return;
  if ((mode & 0o077) !== 0) chmodSync(path, mode & 0o700);
}

/**
 * Makes sure the SQLite database `file` and the journals SQLite keeps beside it are owner-only:
 * a missing database is created 0600 before SQLite opens it, since SQLite gives its -wal and -shm
 * files the database file's mode.
 */
export function ownerOnlyDatabaseFile(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) restrictToOwner(path);
}
