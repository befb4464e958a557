import type { Assignments } from '../../common/agent-protocol/assignments.js';
import type { AgentIdentity } from '../../common/agent-protocol/identity-headers.js';
import { newId } from '../crypto/new-id.js';
import { PermissionError } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import type { DatabasesRepository } from '../databases/databases-repository.js';
import type { DatabasesService } from '../databases/databases-service.js';
import type { AgentRow, AgentsRepository } from './agents-repository.js';

/** last_seen_at is written at most this often: each write is a commit, and agents call several times a minute. */
const lastSeenResolutionMs = 15_000;

function changed(agent: AgentRow, identity: AgentIdentity): boolean {
  return (identity.hostname !== null && identity.hostname !== agent.hostname) || (identity.version !== null && identity.version !== agent.version);
}

export class AgentsService {
  constructor(
    private readonly agents: AgentsRepository,
    private readonly databaseRows: DatabasesRepository,
    private readonly databases: DatabasesService,
  ) {}

  /** The agent behind a service-account key; it appears on its first authenticated call. */
  identify(principal: Principal, identity: AgentIdentity, now: Date): AgentRow {
    if (principal.kind !== 'service_account') throw new PermissionError('Agents authenticate with a service-account key');
    const at = now.toISOString();
    const existing = this.agents.findByApiKey(principal.credentialId);
    if (existing !== undefined) {
      if (changed(existing, identity) || now.getTime() - Date.parse(existing.last_seen_at) >= lastSeenResolutionMs) {
        this.agents.markSeen(existing.id, identity.hostname, identity.version, at);
        return { ...existing, last_seen_at: at };
      }
      return existing;
    }
    const agent: AgentRow = {
      id: newId('agent'),
      org_id: principal.orgId,
      api_key_id: principal.credentialId,
      name: identity.hostname ?? principal.credentialId,
      hostname: identity.hostname,
      version: identity.version,
      spool_dropped_total: 0,
      last_seen_at: at,
      created_at: at,
    };
    this.agents.insert(agent);
    return agent;
  }

  /** What an agent collects, with decrypted connection settings; `null` is the embedded agent. */
  assignments(agentId: string | null): Assignments {
    return {
      agent_id: agentId,
      databases: this.databaseRows.assignedTo(agentId).map((row) => ({
        id: row.id,
        name: row.name,
        type: row.type,
        interval_seconds: row.interval_seconds,
        connection: this.databases.connectionOf(row),
      })),
    };
  }

  list(orgId: string, limit: number, offset: number) {
    return this.agents.list(orgId, limit, offset);
  }

  all(): AgentRow[] {
    return this.agents.all();
  }
}
