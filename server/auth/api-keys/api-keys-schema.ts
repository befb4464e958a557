import { z } from 'zod';
import { pagingQuery, paginationSchema } from '../../http/paging.js';
import { accessLevels, scopes } from '../permissions.js';

export const apiKeyCreateBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    permission: z.enum(accessLevels),
    scopes: z
      .array(z.enum(scopes))
      .min(1)
      .refine((list) => new Set(list).size === list.length, 'scopes must not repeat')
      .optional()
      .describe(
        "Default: the calling key's scopes except `agent` and `api_keys`: a key that may make, list or revoke keys must ask for `api_keys`. Never wider than the calling key's scopes.",
      ),
    expires_at: z.iso.datetime({ offset: true }).optional().describe('ISO 8601; must be in the future'),
    service_account: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_.-]{0,62}$/, 'lower-case letters, digits, _ . -; up to 63 characters')
      .optional()
      .describe(
        "Creates a key for this service account (created when absent) instead of a personal token. Owners' and admins' personal tokens may name any service account; a service-account key only its own.",
      ),
  })
  .meta({ id: 'ApiKeyCreate' });

export const apiKeyRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(['personal', 'service_account']),
    permission: z.enum(accessLevels),
    scopes: z.array(z.enum(scopes)),
    prefix: z.string(),
    last4: z.string(),
    user_id: z.string().nullable(),
    service_account: z.string().nullable(),
    expires_at: z.string().nullable(),
    last_used_at: z.string().nullable(),
    created_at: z.string(),
    revoked_at: z.string().nullable(),
    parent_key_id: z
      .string()
      .nullable()
      .describe(
        'The key this key was made with (POST /v1/api-keys); null when the operator made it. Revoking a key revokes every key made through it, transitively, and a key whose parent (or any ancestor) is revoked or expired is refused.',
      ),
  })
  .meta({ id: 'ApiKey' });

export const createdApiKey = apiKeyRecord
  .extend({ key: z.string().describe('The key value, shown this once only') })
  .meta({ id: 'CreatedApiKey' });

export const apiKeyList = z
  .object({ data: z.array(apiKeyRecord), pagination: paginationSchema() })
  .meta({ id: 'ApiKeyList' });

export const apiKeyListQuery = z.strictObject(pagingQuery);
export const apiKeyIdParams = z.object({ id: z.string() });
