import { StartUpError } from './start-up-error.js';
import { StorageError } from './storage/storage-errors.js';

/**
 * Ends the process with one line and the error's own exit code for problems an operator must fix
 * (a taken port, state directory permissions, a database newer than this program, a state directory
 * held by another server or a restore); rethrows anything else.
 */
export function exitOnStartUpError(error: unknown): never {
  if (!(error instanceof StorageError) && !(error instanceof StartUpError)) throw error;
  process.stderr.write(`dbmon: ${error.message}\n`);
  process.exit(error.exitCode);
}
