import { StorageError } from './storage/storage-errors.js';

/**
 * Ends the process with one line and the error's own exit code for problems an operator must fix
 * (a database newer than this program, a state directory held by a restore); rethrows anything else.
 */
export function exitOnStorageError(error: unknown): never {
  if (!(error instanceof StorageError)) throw error;
  process.stderr.write(`dbmon: ${error.message}\n`);
  process.exit(error.exitCode);
}
