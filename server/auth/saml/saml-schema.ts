import { z } from 'zod';
import { roles } from '../permissions.js';

const httpsOrHttpUrl = z.url({ protocol: /^https?$/ }).max(2000);
const attributeName = z.string().trim().min(1).max(500);
const roleValueList = z.array(z.string().min(1).max(500)).max(100);

export const samlAttributeMapping = z
  .strictObject({
    email: attributeName.describe('The attribute that carries the email; the NameID when the assertion has no such attribute'),
    name: attributeName,
    role: attributeName,
  })
  .meta({ id: 'SamlAttributeMapping' });

export const samlRoleValues = z
  .strictObject({ owner: roleValueList.optional(), admin: roleValueList.optional(), member: roleValueList.optional(), viewer: roleValueList.optional() })
  .describe("For each of our roles, the role attribute's values that give it; any other value gives default_role")
  .meta({ id: 'SamlRoleValues' });

/** What a configuration has where its body says nothing; also what the settings show before one is saved. */
export const samlDefaults = {
  enabled: false,
  attribute_mapping: { email: 'email', name: 'name', role: 'role' },
  role_values: {},
  default_role: 'member',
  jit_provisioning: false,
  allow_idp_initiated: false,
  sso_satisfies_two_factor: true,
} as const;

export const samlSettingsBody = z
  .strictObject({
    enabled: z.boolean().default(samlDefaults.enabled).describe('true only after a passed test of the configuration as it is saved (409 `saml_test_required`)'),
    idp_sso_url: httpsOrHttpUrl.describe("The identity provider's SSO address (HTTP-Redirect binding)"),
    idp_entity_id: z.string().trim().min(1).max(1000).describe("The identity provider's entity id: the Issuer its assertions must name"),
    idp_certificate: z.string().max(20_000).describe('PEM X.509 certificate the identity provider signs with: valid now, RSA of 2048 bits or more, or EC P-256 and up'),
    attribute_mapping: samlAttributeMapping.default({ ...samlDefaults.attribute_mapping }),
    role_values: samlRoleValues.default({ ...samlDefaults.role_values }),
    default_role: z.enum(roles).default(samlDefaults.default_role),
    jit_provisioning: z.boolean().default(samlDefaults.jit_provisioning).describe('Create an account at the first SAML sign-in of an unknown email'),
    allow_idp_initiated: z.boolean().default(samlDefaults.allow_idp_initiated).describe('Accept responses that answer no request of ours (no InResponseTo)'),
    sso_satisfies_two_factor: z
      .boolean()
      .default(samlDefaults.sso_satisfies_two_factor)
      .describe("Accept the identity provider's sign-in as both factors; false sends users with a second factor on to it"),
  })
  .meta({ id: 'SamlSettingsChange' });

export const samlCertificateSummary = z
  .object({
    subject: z.string(),
    not_before: z.string(),
    not_after: z.string(),
    key_type: z.enum(['rsa', 'ec']),
    key_size: z.number().int(),
    fingerprint_sha256: z.string(),
  })
  .meta({ id: 'SamlCertificate' });

export const samlAddresses = {
  sp_entity_id: z.string().describe('{org_url}: our entity id, to give the identity provider'),
  acs_url: z.string().describe('{org_url}/auth/saml/acs: the assertion consumer address (HTTP-POST)'),
  start_url: z.string().describe('{org_url}/auth/saml: where a sign-in starts'),
  metadata_url: z.string().describe('{org_url}/auth/saml/metadata: our service provider metadata'),
};

export const samlSettingsRecord = z
  .object({
    enabled: z.boolean(),
    idp_sso_url: z.string(),
    idp_entity_id: z.string(),
    idp_certificate: z.string(),
    attribute_mapping: samlAttributeMapping,
    role_values: samlRoleValues,
    default_role: z.enum(roles),
    jit_provisioning: z.boolean(),
    allow_idp_initiated: z.boolean(),
    sso_satisfies_two_factor: z
      .boolean()
      .describe("The identity provider's sign-in stands for both factors; false sends users with a second factor on to it"),
    ...samlAddresses,
    certificate: samlCertificateSummary
      .nullable()
      .describe('Read only: the certificate read (expiry, key type and size, SHA-256 fingerprint); null until one is saved'),
    tested_at: z
      .string()
      .nullable()
      .describe('Read only: when a test last passed for the configuration as it is; null after every change. `enabled: true` needs it'),
    updated_at: z.string().nullable().describe('Read only: the last save; null before the first'),
  })
  .meta({ id: 'SamlSettings' });

export const samlTestStarted = z
  .object({ test_url: z.string().describe('Open this address in the browser: it goes to the identity provider and back to a result page') })
  .meta({ id: 'SamlTestStarted' });

export type SamlSettingsChange = z.output<typeof samlSettingsBody>;
export type SamlSettings = z.output<typeof samlSettingsRecord>;
export type SamlRoleValues = z.output<typeof samlRoleValues>;
export type SamlAttributeMapping = z.output<typeof samlAttributeMapping>;
