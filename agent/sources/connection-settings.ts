export interface ConnectionSettings {
  host: string;
  port: number;
  database: string;
  username: string;
  password?: string | null;
  ssl: boolean;
  /**
   * True only for a database of the agent's own config file: the operator chose it, so
   * node-postgres may fill in what it leaves out from the agent's environment (PGPASSWORD, the
   * pgpass file, PGDATABASE...). Never set for a database the server assigns: a write key could
   * point that at its own server and be handed the agent host's password.
   */
  ambientCredentials?: boolean;
}

export interface SourceOptions {
  /** The engine cancels any statement of the agent's that runs longer. */
  statementTimeoutMs: number;
  connectTimeoutMs: number;
}

/** Leads every statement the agent sends, so its own statements can be told apart. */
export const AGENT_MARKER = '/* dbmon */';
/** application_name / program_name of the agent's sessions. */
export const AGENT_NAME = 'dbmon';
