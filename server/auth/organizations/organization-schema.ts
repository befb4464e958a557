import { z } from 'zod';
import { plans } from '../identity/plans.js';
import { parseAddressRange } from '../../net/address-range.js';

export const organizationRecord = z
  .object({ id: z.string(), name: z.string(), slug: z.string(), plan: z.enum(plans), created_at: z.string() })
  .meta({ id: 'Organization' });

export const organizationChangeBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    slug: z
      .string()
      .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'lower-case letters, digits and inner hyphens, at most 63')
      .optional()
      .describe('Names the organization in {org_url} (/orgs/{slug})'),
  })
  .meta({ id: 'OrganizationChange' });

const allowlistEntry = z
  .string()
  .trim()
  .refine((entry) => parseAddressRange(entry) !== undefined, { error: (issue) => `${String(issue.input)} is not an IP address or CIDR range` });

const settingsShape = {
  session_idle_timeout_minutes: z.number().int().min(5).max(1440).describe('Sessions idle this long end; 5..1440, default 30'),
  session_max_duration_hours: z.number().int().min(1).max(720).describe('Sessions end this long after sign-in whatever their use; 1..720, default 168'),
  max_concurrent_sessions: z.number().int().min(1).max(100).describe("Per user; a sign-in past it ends the user's oldest session; 1..100, default 10"),
  require_two_factor: z.boolean().describe('Default false'),
  two_factor_grace_period_days: z.number().int().min(0).max(90).describe('0..90, default 7'),
  ip_allowlist: z
    .array(allowlistEntry)
    .max(1000)
    .describe('Addresses and CIDR ranges (IPv4, IPv6); empty: no restriction. Enterprise plan only (403 plan_required otherwise)'),
  allow_auto_apply: z.boolean().describe('Whether an optimization requested with auto_apply is applied as soon as it is ready; default false'),
};

export const organizationSettingsRecord = z.object(settingsShape).meta({ id: 'OrganizationSettings' });

export const organizationSettingsChangeBody = z
  .strictObject(Object.fromEntries(Object.entries(settingsShape).map(([key, schema]) => [key, schema.optional()])) as {
    [K in keyof typeof settingsShape]: z.ZodOptional<(typeof settingsShape)[K]>;
  })
  .meta({ id: 'OrganizationSettingsChange' });

export type OrganizationSettings = z.output<typeof organizationSettingsRecord>;
export type OrganizationSettingsChange = z.output<typeof organizationSettingsChangeBody>;
