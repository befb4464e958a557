import { z } from 'zod';
import { pagingQuery, paginationSchema } from '../../http/paging.js';
import { credentialKinds } from '../principal.js';
import { auditActions } from './audit-log.js';
import { auditActorTypes } from './audit-origin.js';

const reference = (types: z.ZodType<string>) => z.object({ type: types, id: z.string() });

export const auditEntryRecord = z
  .object({
    id: z.string(),
    action: z.enum(auditActions),
    actor: z
      .object({ type: z.enum(auditActorTypes), id: z.string().nullable() })
      .nullable()
      .describe('Who acted: a user, a service account, or the operator (command line, no id); null when nobody proved who they are (a failed sign-in)'),
    credential: reference(z.enum(credentialKinds)).nullable().describe('The credential the actor used (the key or session id, never its secret)'),
    target: reference(z.string()).nullable().describe('What the action was done to: a user, session, API key or the organization'),
    ip: z.string().nullable().describe('The client address, as the trusted proxies report it'),
    user_agent: z.string().nullable(),
    details: z.record(z.string(), z.unknown()).describe('A few facts about the action (the settings changed, a role before and after); never a secret'),
    created_at: z.string(),
  })
  .meta({ id: 'AuditEntry' });

export const auditEntryList = z.object({ data: z.array(auditEntryRecord), pagination: paginationSchema() });

export const auditLogQuery = z.strictObject({
  ...pagingQuery,
  actor: z.string().max(100).optional().describe('Only entries by this user or service account (usr_... or sa_...)'),
  action: z.enum(auditActions).optional().describe('Only entries of this action'),
  from: z.iso.datetime({ offset: true }).optional().describe('Only entries at or after this time (ISO 8601)'),
  to: z.iso.datetime({ offset: true }).optional().describe('Only entries before this time (ISO 8601)'),
});
