/** A database configured on the agent's host; `connection` is a YAML flow mapping. */
export interface LocalDatabaseYaml {
  id: string;
  type: 'postgresql' | 'mariadb';
  intervalSeconds: number;
  connection: string;
}

/** An agent configuration file's text: its server, state directory, log level and local databases, then `extra` YAML. */
export function localAgentYaml(options: { serverUrl: string; agentKey: string; stateDir: string; logLevel?: string; databases: LocalDatabaseYaml[]; extra?: string }): string {
  const databases = options.databases.map(
    (database) => `  - id: ${database.id}
    type: ${database.type}
    interval_seconds: ${database.intervalSeconds}
    connection: ${database.connection}
`,
  );
  return `server:
  url: ${options.serverUrl}
  agent_key: ${options.agentKey}
state_dir: ${options.stateDir}
log:
  level: ${options.logLevel ?? 'info'}
databases:
${databases.join('')}${options.extra ?? ''}`;
}
