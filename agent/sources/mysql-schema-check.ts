import type { Row } from './row.js';

/**
 * What connecting with a default schema would have checked, for a connection opened without
 * one: the schema exists and the user may use it (a user lists only the schemas it may use).
 */
export async function checkMysqlSchema(
  query: (sql: string, params: readonly unknown[]) => Promise<Row[]>,
  settings: { database: string; username: string },
): Promise<void> {
  const schemas = await query('SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [settings.database]);
  if (schemas.length === 0) {
    // The code the server answers a connection with this default schema with: the agent reports it as database_not_found.
    throw Object.assign(new Error(`database '${settings.database}' does not exist, or user '${settings.username}' has no privilege on it`), {
      code: 'ER_BAD_DB_ERROR',
    });
  }
}
