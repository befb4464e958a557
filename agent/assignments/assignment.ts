import { z } from 'zod';
import type { ConnectionSettings } from '../sources/connection-settings.js';

export const databaseTypeSchema = z.enum(['postgresql', 'mysql', 'mariadb']);

export const connectionSchema = z.object({
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535),
  database: z.string(),
  username: z.string().min(1),
  password: z.string().nullable(),
  ssl: z.boolean(),
});

/** One database the agent collects, as `GET /v1/agent/assignments` lists it. */
export const assignmentSchema = z.object({
  id: z.string().regex(/^db_[0-9A-Za-z]+$/, 'must be a database id (db_...)'),
  name: z.string(),
  type: databaseTypeSchema,
  interval_seconds: z.number().int().min(1).max(86_400),
  connection: connectionSchema,
});

export const assignmentsSchema = z.object({
  /** null for the server's embedded agent. */
  agent_id: z.string().nullable(),
  databases: z.array(assignmentSchema),
});

export type DatabaseType = z.output<typeof databaseTypeSchema>;
/** One database to collect: as the server assigns it, or from the agent's own config file (see `ConnectionSettings.ambientCredentials`). */
export type Assignment = Omit<z.output<typeof assignmentSchema>, 'connection'> & { connection: ConnectionSettings };
export type Assignments = z.output<typeof assignmentsSchema>;

/** Where the agent learns what to collect: the server over HTTP, or in-process for the embedded agent. */
export interface AssignmentSource {
  fetchAssignments(signal?: AbortSignal): Promise<Assignments>;
}
