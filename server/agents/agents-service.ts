import type { AgentConnection, Assignments } from '../../common/agent-protocol/assignments.js';
import type { AgentIdentity } from '../../common/agent-protocol/identity-headers.js';
import { newId } from '../crypto/new-id.js';
import type { Principal } from '../auth/principal.js';
import type { DatabaseRow } from '../databases/database-row.js';
import type { AgentRow } from './agent-row.js';
import type { AgentsRepository } from './agents-repository.js';

/** last_seen_at is written at most this often: each write is a commit, and agents call several times a minute. */
const lastSeenResolutionMs = 15_000;

/** The databases feature, as assignments read it. */
export interface AssignableDatabases {
  assignedTo(agentId: string | null): DatabaseRow[];
  connectionOf(row: DatabaseRow): AgentConnection;
}

function changed(agent: AgentRow, identity: AgentIdentity): boolean {
  return (identity.hostname !== null && identity.hostname !== agent.hostname) || (identity.version !== null && identity.version !== agent.version);
}

export class AgentsService {
  constructor(
    private readonly agents: AgentsRepository,
    private readonly databases: AssignableDatabases,
  ) {}

  /** The agent behind a service-account key (the only credential its routes accept); it appears on its first authenticated call. */
  identify(principal: Principal, identity: AgentIdentity, now: Date): AgentRow {
    const at = now.toISOString();
    const keyId = principal.credential.id;
    const existing = this.agents.findByApiKey(keyId);
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
      api_key_id: keyId,
      name: identity.hostname ?? keyId,
      hostname: identity.hostname,
      version: identity.version,
      spool_dropped_total: 0,
      spool_batches: null,
      spool_oldest_batch_at: null,
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
      databases: this.databases.assignedTo(agentId).map((row) => ({
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
