/** Who an agent says it is, in headers of every request: its host and its version. */
export interface AgentIdentity {
  hostname: string | null;
  version: string | null;
}

export const agentHostnameHeader = 'X-Dbmon-Agent-Hostname';

/** The agent's `User-Agent`, which carries its version. */
export function agentUserAgent(version: string): string {
  return `dbmon-agent/${version}`;
}

/** The identity stated in a request's headers, read with `header(name)` (empty when absent); malformed values are ignored. */
export function agentIdentityOf(header: (name: string) => string): AgentIdentity {
  const hostname = header(agentHostnameHeader);
  const version = /^dbmon-agent\/(\S{1,40})/.exec(header('User-Agent'))?.[1] ?? null;
  return { hostname: /^[A-Za-z0-9._-]{1,253}$/.test(hostname) ? hostname : null, version };
}
