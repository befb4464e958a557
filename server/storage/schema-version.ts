import type { Db } from './open-database.js';

/** The highest migration recorded in the database; 0 for a database dbmon never migrated. */
export function readSchemaVersion(db: Db): number {
  const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").pluck().get();
  if (hasTable === undefined) return 0;
  return (db.prepare('SELECT max(version) FROM schema_migrations').pluck().get() as number | null) ?? 0;
}
