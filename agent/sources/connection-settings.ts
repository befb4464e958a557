export interface ConnectionSettings {
  host: string;
  port: number;
  database: string;
  username: string;
  password?: string | null;
  ssl: boolean;
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
