import type { AssignedDatabase, Assignments } from '../../common/agent-protocol/assignments.js';
import type { ConnectionSettings } from '../sources/connection-settings.js';

/** One database to collect: as the server assigns it, or from the agent's own config file (see `ConnectionSettings.ambientCredentials`). */
export type Assignment = Omit<AssignedDatabase, 'connection'> & { connection: ConnectionSettings };

/** Where the agent learns what to collect: the server over HTTP, or in-process for the embedded agent. */
export interface AssignmentSource {
  fetchAssignments(signal?: AbortSignal): Promise<Assignments>;
}
