import { z } from 'zod';
import { databaseTypes } from './database-types.js';

/** A database's connection settings as an agent receives them: the password decrypted. */
export const agentConnection = z.object({
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535),
  database: z.string(),
  username: z.string().min(1),
  password: z.string().nullable(),
  ssl: z.boolean(),
});
export type AgentConnection = z.output<typeof agentConnection>;

/** One database the agent collects, as `GET /v1/agent/assignments` lists it. */
export const assignment = z.object({
  id: z.string().regex(/^db_[0-9A-Za-z]+$/, 'must be a database id (db_...)'),
  name: z.string(),
  type: z.enum(databaseTypes),
  interval_seconds: z.number().int().min(1).max(86_400),
  connection: agentConnection,
});
export type AssignedDatabase = z.output<typeof assignment>;

/** The body of `GET /v1/agent/assignments`. */
export const agentAssignments = z
  .object({
    /** null for the server's embedded agent. */
    agent_id: z.string().nullable(),
    databases: z.array(assignment),
  })
  .meta({ id: 'AgentAssignments' });
export type Assignments = z.output<typeof agentAssignments>;
