import { z } from 'zod';
import { pagingQuery, paginationSchema } from '../../http/paging.js';

export const sessionRecord = z
  .object({
    id: z.string(),
    device: z.string().describe('What the User-Agent says: desktop (when it names no other), mobile, tablet, smarttv, wearable, console, embedded'),
    browser: z.string().nullable().describe('Browser name and major version, from the User-Agent'),
    os: z.string().nullable().describe('Operating system and version, from the User-Agent'),
    ip: z.string().describe('The client address that signed in'),
    location: z
      .object({
        network: z.enum(['loopback', 'private', 'public']).describe('loopback and private addresses (RFC 1918, shared, link-local, unique-local) have no place'),
        country_code: z.string().nullable().describe('ISO 3166-1 alpha-2'),
        country: z.string().nullable().describe('In English'),
        city: z.string().nullable().describe('In English; null with a Country database'),
      })
      .nullable()
      .describe('Where the address is, from the `geoip.database` MaxMind database; null without one, or when it does not know the address'),
    created_at: z.string(),
    last_active_at: z.string().describe('Recorded at most once a minute'),
    expires_at: z.string().describe('The earlier of last activity plus the idle timeout and the start plus the maximum duration, under the current settings'),
    current: z.boolean().describe('This is the session making the request'),
  })
  .meta({ id: 'Session' });

export const sessionList = z.object({ data: z.array(sessionRecord), pagination: paginationSchema() });
export const sessionListQuery = z.strictObject(pagingQuery);
export const sessionIdParams = z.strictObject({ id: z.string() });
