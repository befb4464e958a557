import { z } from 'zod';
import { pagingQuery, paginationSchema } from '../../http/paging.js';
import { roles } from '../permissions.js';
import { userRecord } from './profile-schema.js';

const userName = z.string().trim().min(1).max(200);

export const userCreateBody = z
  .strictObject({
    email: z.email().max(254),
    name: userName.optional().describe('Default: the part of the email before @; the invitee chooses their own when accepting'),
    role: z.enum(roles).default('member').describe('Only owners may invite owners'),
  })
  .meta({ id: 'UserCreate' });

export const userChangeBody = z
  .strictObject({
    name: userName.optional(),
    role: z.enum(roles).optional().describe('Only owners may make or change owners; the last active owner keeps the role'),
    status: z
      .enum(['active', 'disabled'])
      .optional()
      .describe('`disabled` ends the sessions, revokes the personal tokens and cancels pending links; `active` gives a disabled user back the account (invited again when they never set a password)'),
  })
  .meta({ id: 'UserChange' });

export const invitationLink = z
  .object({
    url: z.string().describe('`{auth_url}/invitations/{token}`: shown this once; works once, until expires_at'),
    expires_at: z.string(),
    email_sent: z.boolean().describe('Whether the link was also mailed to the invitee (only when SMTP is configured)'),
  })
  .meta({ id: 'InvitationLink' });

export const invitedUser = userRecord.extend({ invitation: invitationLink }).meta({ id: 'InvitedUser' });

export const userList = z.object({ data: z.array(userRecord), pagination: paginationSchema() }).meta({ id: 'UserList' });

export const userListQuery = z.strictObject(pagingQuery);
export const userIdParams = z.object({ id: z.string() });
