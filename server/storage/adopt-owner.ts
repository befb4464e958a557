import { chownSync, statSync } from 'node:fs';

/**
 * Gives `path` the owner of `reference` when running as root. The operator CLI runs as root on a
 * state directory that belongs to the service's (dynamic) user; a root-owned database, lock or
 * backups folder left behind would lock the service out of its own state.
 */
export function adoptOwner(path: string, reference: string): void {
  if (process.getuid?.() !== 0) return;
  const { uid, gid } = statSync(reference);
  if (uid !== 0 || gid !== 0) chownSync(path, uid, gid);
}
