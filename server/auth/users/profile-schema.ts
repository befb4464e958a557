import { z } from 'zod';
import { roles } from '../permissions.js';
import { userStatuses } from '../identity/user.js';

export const userRecord = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    role: z.enum(roles),
    status: z.enum(userStatuses),
    two_factor_enabled: z.boolean(),
    created_at: z.string(),
    last_sign_in_at: z.string().nullable(),
  })
  .meta({ id: 'User' });

export const currentUserRecord = userRecord
  .extend({
    csrf_token: z
      .string()
      .optional()
      .describe('Present when the caller is a browser session: send it as X-CSRF-Token with every request that changes anything'),
  })
  .meta({ id: 'CurrentUser' });

// Bounded well above the password policy's 256 characters only to keep argon2's input small.
const passwordText = z.string().max(1024);

export const profileChangeBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    password: passwordText.optional().describe('12 to 256 characters, not a commonly used password; needs current_password'),
    current_password: passwordText.optional(),
  })
  .meta({ id: 'ProfileChange' });
