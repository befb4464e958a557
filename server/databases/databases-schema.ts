import { z } from 'zod';
import { databaseTypes } from '../../common/agent-protocol/database-types.js';
import { collectionErrorCodes } from '../../common/agent-protocol/error-codes.js';
import { pagingQuery, paginationSchema } from '../http/paging.js';

export const databaseStatuses = ['pending', 'healthy', 'warning', 'critical', 'unreachable', 'paused'] as const;
export type DatabaseStatus = (typeof databaseStatuses)[number];

const host = z.string().trim().min(1).max(255);
const port = z.number().int().min(1).max(65535);
const identifier = z.string().min(1).max(128);
const password = z.string().max(1024);
const intervalSeconds = z.number().int().min(10).max(3600);

export const databaseCreateBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    type: z.enum(databaseTypes),
    connection: z.strictObject({
      host,
      port: port.optional().describe('Default 5432 for postgresql, 3306 otherwise'),
      database: identifier,
      username: identifier,
      password: password.optional(),
      ssl: z.boolean().default(false),
    }),
    monitoring: z
      .strictObject({
        enabled: z.boolean().default(true),
        interval_seconds: intervalSeconds.default(60),
      })
      .prefault({}),
    agent_id: z.string().nullable().default(null).describe('The agent that collects it; null: the server\'s embedded agent'),
  })
  .meta({ id: 'DatabaseCreate' });

export const databaseUpdateBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100).optional(),
    type: z.enum(databaseTypes).optional(),
    connection: z
      .strictObject({
        host: host.optional(),
        port: port.optional(),
        database: identifier.optional(),
        username: identifier.optional(),
        password: password
          .nullable()
          .optional()
          .describe(
            'null clears the stored password. Absent: the stored one is kept, unless this request changes where or as whom ' +
              'the agent connects (type, host, port, database, username, ssl, agent_id): then it is cleared too',
          ),
        ssl: z.boolean().optional(),
      })
      .optional(),
    monitoring: z
      .strictObject({ enabled: z.boolean().optional(), interval_seconds: intervalSeconds.optional() })
      .optional(),
    agent_id: z.string().nullable().optional(),
  })
  .meta({ id: 'DatabaseUpdate' });

export type DatabaseCreate = z.output<typeof databaseCreateBody>;
export type DatabaseUpdate = z.output<typeof databaseUpdateBody>;

export const databaseRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(databaseTypes),
    version: z.string().nullable(),
    status: z.enum(databaseStatuses),
    agent_id: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    connection: z.object({
      host: z.string(),
      port: z.number().int(),
      database: z.string(),
      username: z.string(),
      ssl: z.boolean(),
      password_set: z
        .boolean()
        .describe('Whether a password is stored; turns false when a change of connection or agent cleared it (see PUT)'),
    }),
    monitoring: z.object({ enabled: z.boolean(), interval_seconds: z.number().int() }),
    last_error: z
      .object({
        code: z.string().describe(`Why, as a stable code: ${collectionErrorCodes.join(', ')} (and possibly new ones from newer agents)`),
        message: z
          .string()
          .describe("The driver's message, for people; the stored password and anything password-like are masked, and a connection string never appears"),
        at: z.string().describe('When the collections began failing with this code and message'),
      })
      .nullable()
      .describe(
        "Why the newest collection could not reach the database (the reason behind `status: unreachable`); null before the " +
          'first failure and again as soon as a collection reaches the database. The unreachable alert quotes it.',
      ),
  })
  .meta({ id: 'Database' });

export const databaseList = z
  .object({ data: z.array(databaseRecord), pagination: paginationSchema() })
  .meta({ id: 'DatabaseList' });

export const databaseListQuery = z.strictObject({
  ...pagingQuery,
  type: z.enum(databaseTypes).optional(),
  status: z.enum(databaseStatuses).optional(),
});
export type DatabaseListQuery = z.output<typeof databaseListQuery>;

export const databaseIdParams = z.object({ id: z.string() });
