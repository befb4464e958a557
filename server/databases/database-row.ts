import type { DatabaseType } from '../../common/agent-protocol/database-types.js';
import type { DatabaseStatus } from './databases-schema.js';

/** A monitored database as stored: what other features know of one (they never read its table). */
export interface DatabaseRow {
  id: string;
  org_id: string;
  name: string;
  type: DatabaseType;
  host: string;
  port: number;
  database_name: string;
  username: string;
  password_encrypted: Buffer | null;
  ssl: number;
  monitoring_enabled: number;
  interval_seconds: number;
  agent_id: string | null;
  version: string | null;
  status: DatabaseStatus;
  created_at: string;
  updated_at: string;
  /** Why the newest collection failed, without secrets; all null once one succeeds (see LastError). */
  last_error_code: string | null;
  last_error_message: string | null;
  last_error_at: string | null;
}

/** Why the newest collection of a database failed: a stable code, the redacted message, and since when it fails so. */
export interface LastError {
  code: string;
  message: string;
  at: string;
}
