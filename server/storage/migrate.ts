import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './open-database.js';
import { snapshotDatabase } from './snapshot-database.js';
import { SchemaTooNewError } from './storage-errors.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const migrationsDir = fileURLToPath(new URL('./migrations/', import.meta.url));

export function readMigrations(dir = migrationsDir): Migration[] {
  return readdirSync(dir)
    .map((file) => /^(\d{4})-([a-z0-9-]+)\.sql$/.exec(file))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({
      version: Number(match[1]),
      name: match[2]!,
      sql: readFileSync(`${dir}/${match[0]}`, 'utf8'),
    }))
    .sort((a, b) => a.version - b.version);
}

export interface MigrateOptions {
  /** Where the copy taken before migrating a database that has data goes; null for none. Default: `backups/` beside the database file. */
  backupDir?: string | null;
  /** Told the path of that copy. */
  onBackup?: (file: string) => void;
}

/**
 * Applies, in order and each in its own transaction, the migrations the database has not seen. Returns those applied.
 * Refuses (SchemaTooNewError) a database that a newer dbmon migrated further than `migrations` go. Before changing
 * a database that already has data, copies it to `<backupDir>/dbmon-before-<target version>-<time>.db`.
 */
export function migrate(db: Db, migrations = readMigrations(), now = new Date(), options: MigrateOptions = {}): Migration[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const applied = new Set(
    db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[],
  );
  const knownVersion = Math.max(0, ...migrations.map((migration) => migration.version));
  const databaseVersion = Math.max(0, ...applied);
  if (databaseVersion > knownVersion) throw new SchemaTooNewError(databaseVersion, knownVersion);
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const pending = migrations.filter((migration) => !applied.has(migration.version));
  if (pending.length > 0 && applied.size > 0) backupBeforeMigrating(db, pending.at(-1)!.version, now, options);
  for (const migration of pending) {
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, now.toISOString());
    })();
  }
  return pending;
}

function backupBeforeMigrating(db: Db, targetVersion: number, now: Date, options: MigrateOptions): void {
  const dir = options.backupDir === undefined ? (db.memory ? null : join(dirname(db.name), 'backups')) : options.backupDir;
  if (dir === null) return;
  const stamp = now.toISOString().replace(/[-:.]/g, '');
  const file = join(dir, `dbmon-before-${String(targetVersion).padStart(4, '0')}-${stamp}.db`);
  snapshotDatabase(db, file);
  options.onBackup?.(file);
}
