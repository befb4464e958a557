import type { Role } from '../permissions.js';
import type { SamlConfigurationRow } from './saml-repository.js';
import type { SamlAttributeMapping, SamlRoleValues } from './saml-schema.js';

/** An organization's SAML configuration, read from its row. */
export interface SamlConfiguration {
  orgId: string;
  enabled: boolean;
  idpSsoUrl: string;
  idpEntityId: string;
  idpCertificate: string;
  attributeMapping: SamlAttributeMapping;
  roleValues: SamlRoleValues;
  defaultRole: Role;
  jitProvisioning: boolean;
  allowIdpInitiated: boolean;
  ssoSatisfiesTwoFactor: boolean;
  updatedAt: string;
  testedAt: string | null;
}

export function configurationOf(row: SamlConfigurationRow): SamlConfiguration {
  return {
    orgId: row.org_id,
    enabled: row.enabled === 1,
    idpSsoUrl: row.idp_sso_url,
    idpEntityId: row.idp_entity_id,
    idpCertificate: row.idp_certificate,
    attributeMapping: JSON.parse(row.attribute_mapping) as SamlAttributeMapping,
    roleValues: JSON.parse(row.role_values) as SamlRoleValues,
    defaultRole: row.default_role,
    jitProvisioning: row.jit_provisioning === 1,
    allowIdpInitiated: row.allow_idp_initiated === 1,
    ssoSatisfiesTwoFactor: row.sso_satisfies_two_factor === 1,
    updatedAt: row.updated_at,
    testedAt: row.tested_at,
  };
}
