import { z } from 'zod';
import { pagingQuery, paginationSchema } from '../../http/paging.js';
import { providerKinds } from './provider-kinds.js';

export const providerParams = z.object({ provider: z.enum(providerKinds) });

const httpsOrLoopbackUrl = z
  .url({ protocol: /^https?$/ })
  .refine((value) => {
    const url = new URL(value);
    return url.protocol === 'https:' || ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  }, 'must be https (or http on a loopback address)')
  .refine((value) => new URL(value).search === '' && new URL(value).hash === '', 'must have no query or fragment')
  .transform((value) => value.replace(/\/+$/, ''));

export const providerSettingsBody = z
  .strictObject({
    client_id: z.string().trim().min(1).max(500),
    client_secret: z.string().min(1).max(2000).optional().describe('Write only: required the first time, left out to keep the saved one. Sealed at rest, never returned'),
    base_url: httpsOrLoopbackUrl.nullable().optional().describe('GitLab only: the instance (default https://gitlab.com)'),
    tenant: z
      .string()
      .regex(/^[A-Za-z0-9.-]{1,100}$/)
      .nullable()
      .optional()
      .describe('Microsoft only: the Entra tenant id or domain, or organizations / common / consumers (default organizations)'),
    enabled: z.boolean().default(false).describe('Offered on the sign-in page'),
  })
  .meta({ id: 'IdentityProviderSettings' });

export const providerRecord = z
  .object({
    provider: z.enum(providerKinds),
    client_id: z.string(),
    client_secret_set: z.literal(true).describe('Always true, a secret is saved; the secret itself is never returned'),
    base_url: z.string().nullable().describe('GitLab: the instance; null for the others'),
    tenant: z.string().nullable().describe('Microsoft: the Entra tenant; null for the others'),
    enabled: z.boolean(),
    callback_url: z.string().describe('`{auth_url}/auth/{provider}/callback?org={slug}`: the address to register at the provider as the authorized callback (redirect) URL, query included'),
    created_at: z.string().describe('The first save'),
    updated_at: z.string().describe('The last save'),
  })
  .meta({ id: 'IdentityProvider' });

export const providerList = z.object({ data: z.array(providerRecord) }).meta({ id: 'IdentityProviderList' });

export const providerTestResult = z
  .object({ ok: z.boolean().describe('true: reachable, and the client id and secret accepted'), message: z.string().describe('What the provider answered, in words') })
  .meta({ id: 'IdentityProviderTest', description: 'Whether the provider is reachable and accepted the client id and secret (a code that cannot be valid is offered to its token endpoint)' });

export const identityRecord = z
  .object({
    id: z.string().describe('idn_...'),
    provider: z.enum(providerKinds),
    email: z.string().describe('The verified email the identity was linked by'),
    created_at: z.string().describe('When it was linked'),
    last_used_at: z.string().nullable().describe('The last sign-in through it; null before the first after linking'),
  })
  .meta({ id: 'UserIdentity' });

export const identityList = z.object({ data: z.array(identityRecord), pagination: paginationSchema() }).meta({ id: 'UserIdentityList' });
export const identityListQuery = z.strictObject(pagingQuery);
export const identityIdParams = z.object({ id: z.string() });
