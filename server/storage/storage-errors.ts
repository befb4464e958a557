/**
 * Problems with the state database that an operator must act on. Each carries the exit code the
 * server and the CLI stop with (sysexits.h), so systemd can tell a permanent problem from a passing one.
 */
export class StorageError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** EX_DATAERR: the database was written by a newer dbmon; restarting will not help. */
export class SchemaTooNewError extends StorageError {
  constructor(
    readonly databaseVersion: number,
    readonly knownVersion: number,
  ) {
    super(
      `database schema version ${databaseVersion} is newer than this dbmon (knows up to ${knownVersion}); upgrade dbmon or restore a backup`,
      65,
    );
  }
}

/** EX_TEMPFAIL: another process (a running server, a restore) holds the state directory's lock. */
export class StateDirBusyError extends StorageError {
  constructor(readonly lockFile: string) {
    super(`the state directory is in use: ${lockFile} is held by a running dbmon server or restore; stop it first`, 75);
  }
}

/** EX_DATAERR: a file offered for restore is not a sound dbmon database. */
export class InvalidBackupError extends StorageError {
  constructor(file: string, problem: string) {
    super(`${file}: ${problem}`, 65);
  }
}

/** EX_NOINPUT: there is no database where one was expected. */
export class MissingDatabaseError extends StorageError {
  constructor(file: string, hint?: string) {
    super(`no database at ${file}${hint === undefined ? '' : `: ${hint}`}`, 66);
  }
}
