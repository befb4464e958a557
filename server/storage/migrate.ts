import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Db } from './open-database.js';

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

/** Applies, in order and each in its own transaction, the migrations the database has not seen. Returns those applied. */
export function migrate(db: Db, migrations = readMigrations(), now = new Date()): Migration[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const applied = new Set(
    db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[],
  );
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const pending = migrations.filter((migration) => !applied.has(migration.version));
  for (const migration of pending) {
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, now.toISOString());
    })();
  }
  return pending;
}
