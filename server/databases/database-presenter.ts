import type { DatabaseRow } from './database-row.js';
import type { DatabaseSummary } from './databases-repository.js';

/** The public record: the password never leaves, only whether one is set. */
export function presentDatabase(row: DatabaseRow | DatabaseSummary) {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    version: row.version,
    status: row.status,
    agent_id: row.agent_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    connection: {
      host: row.host,
      port: row.port,
      database: row.database_name,
      username: row.username,
      ssl: row.ssl === 1,
      password_set: 'password_set' in row ? row.password_set === 1 : row.password_encrypted !== null,
    },
    monitoring: { enabled: row.monitoring_enabled === 1, interval_seconds: row.interval_seconds },
    last_error:
      // The three are written together (DatabasesRepository.recordCollection).
      row.last_error_code === null ? null : { code: row.last_error_code, message: row.last_error_message!, at: row.last_error_at! },
  };
}
