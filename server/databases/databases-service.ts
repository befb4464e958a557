import { ConflictError, InvalidRequestError, NotFoundError } from '../errors.js';
import { newId } from '../crypto/new-id.js';
import type { SecretBox } from '../../common/secret-box.js';
import type { DatabaseRow, LastError } from './database-row.js';
import type { DatabasesRepository } from './databases-repository.js';
import { redactSecrets } from './redact-secrets.js';
import type { DatabaseType } from '../../common/agent-protocol/database-types.js';
import type { DatabaseCreate, DatabaseUpdate } from './databases-schema.js';
import type { Transaction } from '../storage/open-database.js';

export function defaultPort(type: DatabaseType): number {
  return type === 'postgresql' ? 5432 : 3306;
}

/** Told, inside the update's transaction, that a database is now reached elsewhere or as someone else (optimizations: their work was of another database). */
export interface ConnectionChangeListener {
  databaseConnectionChanged(databaseId: string, now: Date): void;
}

/** The agents a database may be assigned to (the agents feature). */
export interface AgentDirectory {
  findById(orgId: string, agentId: string): object | undefined;
}

/** Decides a database's status after its settings changed (AlertEvaluationService: the one place status is derived). */
export interface DatabaseStatusReconciler {
  /** Runs in the update's transaction; writes the status and its event when it changed, and returns it. */
  databaseUpdated(previous: DatabaseRow, next: DatabaseRow, now: Date): DatabaseRow['status'];
}

export class DatabasesService {
  constructor(
    private readonly databases: DatabasesRepository,
    private readonly agents: AgentDirectory,
    private readonly secrets: SecretBox,
    private readonly statuses: DatabaseStatusReconciler,
    private readonly connectionChanges: ConnectionChangeListener,
    private readonly transaction: Transaction,
  ) {}

  create(orgId: string, input: DatabaseCreate, now: Date): DatabaseRow {
    const id = newId('db');
    const at = now.toISOString();
    const row: DatabaseRow = {
      id,
      org_id: orgId,
      name: input.name,
      type: input.type,
      host: input.connection.host,
      port: input.connection.port ?? defaultPort(input.type),
      database_name: input.connection.database,
      username: input.connection.username,
      password_encrypted: input.connection.password === undefined ? null : this.secrets.seal(input.connection.password, id),
      ssl: Number(input.connection.ssl),
      monitoring_enabled: Number(input.monitoring.enabled),
      interval_seconds: input.monitoring.interval_seconds,
      agent_id: this.checkedAgent(orgId, input.agent_id),
      version: null,
      status: input.monitoring.enabled ? 'pending' : 'paused',
      created_at: at,
      updated_at: at,
      last_error_code: null,
      last_error_message: null,
      last_error_at: null,
    };
    this.write(() => this.databases.insert(row), input.name);
    return row;
  }

  get(orgId: string, id: string): DatabaseRow {
    const row = this.databases.findById(orgId, id);
    if (row === undefined) throw new NotFoundError(`No database ${id}`, 'id');
    return row;
  }

  /**
   * Merges the given fields into the stored record; a null password clears it. A change of where or
   * as whom the agent connects (type, host, port, database, username, ssl, agent) clears the stored
   * password too, unless the same patch gives one: otherwise whoever may edit the record could send
   * the password to a server of their own.
   */
  update(orgId: string, id: string, patch: DatabaseUpdate, now: Date): DatabaseRow {
    const current = this.get(orgId, id);
    const type = patch.type ?? current.type;
    const keptDefaultPort = current.port === defaultPort(current.type) ? defaultPort(type) : current.port;
    const connection = patch.connection ?? {};
    const enabled = patch.monitoring?.enabled ?? current.monitoring_enabled === 1;
    const merged: DatabaseRow = {
      ...current,
      name: patch.name ?? current.name,
      type,
      host: connection.host ?? current.host,
      port: connection.port ?? keptDefaultPort,
      database_name: connection.database ?? current.database_name,
      username: connection.username ?? current.username,
      ssl: connection.ssl === undefined ? current.ssl : Number(connection.ssl),
      monitoring_enabled: Number(enabled),
      interval_seconds: patch.monitoring?.interval_seconds ?? current.interval_seconds,
      agent_id: patch.agent_id === undefined ? current.agent_id : this.checkedAgent(orgId, patch.agent_id),
      // Pausing, resuming (pending until the next sample) and the rest: decided by the reconciler below.
      status: current.status,
      updated_at: now.toISOString(),
    };
    const moved = connectsElsewhere(current, merged);
    const next: DatabaseRow = { ...merged, password_encrypted: this.nextPassword(current, connection.password, moved) };
    return this.transaction(() => {
      this.write(() => this.databases.update(next), next.name);
      if (moved) this.connectionChanges.databaseConnectionChanged(id, now);
      return { ...next, status: this.statuses.databaseUpdated(current, next, now) };
    });
  }

  /** Every organization's database ids: for background jobs (retention, alert evaluation). */
  ids(): string[] {
    return this.databases.ids();
  }

  /** Any organization's database: for agents, ingest and jobs, which are not scoped to a caller's organization. */
  findAnyOrg(id: string): DatabaseRow | undefined {
    return this.databases.findAnyOrg(id);
  }

  /** The databases an agent collects; `null` is the embedded agent. */
  assignedTo(agentId: string | null): DatabaseRow[] {
    return this.databases.assignedTo(agentId);
  }

  /** What a newly stored newest collection leaves on the database: the agent's version and the last error (lastErrorOf). */
  recordCollection(row: DatabaseRow, collection: { version: string | null; reachable: boolean; error?: string | undefined; error_code?: string | undefined }, at: string): void {
    this.databases.recordCollection(row.id, collection.version, this.lastErrorOf(row, collection, at));
  }

  delete(orgId: string, id: string): void {
    if (!this.databases.delete(orgId, id)) throw new NotFoundError(`No database ${id}`, 'id');
  }

  /** The connection settings an agent needs, password decrypted. */
  connectionOf(row: DatabaseRow) {
    return {
      host: row.host,
      port: row.port,
      database: row.database_name,
      username: row.username,
      password: row.password_encrypted === null ? null : this.secrets.open(row.password_encrypted, row.id),
      ssl: row.ssl === 1,
    };
  }

  /**
   * The last error a collection leaves on the database: null when it reached the database;
   * otherwise the agent's code and message, with the stored password and anything else
   * password-like masked, as of `at`.
   */
  lastErrorOf(row: DatabaseRow, collection: { reachable: boolean; error?: string | undefined; error_code?: string | undefined }, at: string): LastError | null {
    if (collection.reachable) return null;
    const password = row.password_encrypted === null ? null : this.secrets.open(row.password_encrypted, row.id);
    return {
      // An agent from before error codes sends none.
      code: collection.error_code ?? 'collection_failed',
      message: redactSecrets(collection.error ?? 'The collection failed', [password]),
      at,
    };
  }

  private checkedAgent(orgId: string, agentId: string | null): string | null {
    if (agentId !== null && this.agents.findById(orgId, agentId) === undefined) {
      throw new InvalidRequestError('invalid_parameter', `No agent ${agentId} in this organization`, 'agent_id');
    }
    return agentId;
  }

  private nextPassword(current: DatabaseRow, password: string | null | undefined, moved: boolean): Buffer | null {
    if (password === undefined) return moved ? null : current.password_encrypted;
    return password === null ? null : this.secrets.seal(password, current.id);
  }

  private write(statement: () => void, name: string): void {
    try {
      statement();
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
        throw new ConflictError('already_exists', `A database named ${name} exists in this organization`, 'name');
      }
      throw error;
    }
  }
}

/** True when the agent would connect somewhere else, or as someone else, than before. */
function connectsElsewhere(current: DatabaseRow, next: DatabaseRow): boolean {
  return (
    next.type !== current.type ||
    next.host !== current.host ||
    next.port !== current.port ||
    next.database_name !== current.database_name ||
    next.username !== current.username ||
    next.ssl !== current.ssl ||
    next.agent_id !== current.agent_id
  );
}
