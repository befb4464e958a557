import { ConflictError, NotFoundError } from '../../errors.js';
import type { Transaction } from '../../storage/open-database.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditOrigin } from '../audit/audit-origin.js';
import type { Organization } from '../identity/organization.js';
import { checkIdpCertificate } from './idp-certificate.js';
import { samlAddresses } from './saml-addresses.js';
import { configurationOf, type SamlConfiguration } from './saml-configuration.js';
import type { SamlConfigurationRow, SamlRepository } from './saml-repository.js';
import { samlDefaults, type SamlSettings, type SamlSettingsChange } from './saml-schema.js';

/** The identity feature's organizations, as SAML addresses and starts name them. */
export interface SamlOrganizations {
  findById(id: string): Organization | undefined;
  findBySlug(slug: string): Organization | undefined;
}

/** The fields whose change voids a passed test. */
const testedFields = [
  'idp_sso_url',
  'idp_entity_id',
  'idp_certificate',
  'attribute_mapping',
  'role_values',
  'default_role',
  'jit_provisioning',
  'allow_idp_initiated',
  'sso_satisfies_two_factor',
] as const;

/** An organization's SAML settings, as its owners and admins read and replace them; every change audited. */
export class SamlSettingsService {
  constructor(
    private readonly repository: SamlRepository,
    private readonly organizations: SamlOrganizations,
    private readonly audit: AuditLog,
    private readonly transaction: Transaction,
    private readonly publicUrl: string,
  ) {}

  configuration(orgId: string): SamlConfiguration | undefined {
    const row = this.repository.configuration(orgId);
    return row === undefined ? undefined : configurationOf(row);
  }

  organization(orgId: string): Organization {
    const organization = this.organizations.findById(orgId);
    if (organization === undefined) throw new NotFoundError(`No organization ${orgId}`);
    return organization;
  }

  settings(orgId: string, now: Date): SamlSettings {
    const addresses = samlAddresses(this.publicUrl, this.organization(orgId).slug);
    const row = this.repository.configuration(orgId);
    if (row === undefined) {
      return {
        ...samlDefaults,
        attribute_mapping: { ...samlDefaults.attribute_mapping },
        role_values: {},
        idp_sso_url: '',
        idp_entity_id: '',
        idp_certificate: '',
        ...addresses,
        certificate: null,
        tested_at: null,
        updated_at: null,
      };
    }
    const configuration = configurationOf(row);
    let certificate: SamlSettings['certificate'] = null;
    try {
      certificate = checkIdpCertificate(row.idp_certificate, now);
    } catch {
      // Saved while valid, expired since: the settings still show what is stored, without a summary.
    }
    return {
      enabled: configuration.enabled,
      idp_sso_url: row.idp_sso_url,
      idp_entity_id: row.idp_entity_id,
      idp_certificate: row.idp_certificate,
      attribute_mapping: configuration.attributeMapping,
      role_values: configuration.roleValues,
      default_role: row.default_role,
      jit_provisioning: configuration.jitProvisioning,
      allow_idp_initiated: configuration.allowIdpInitiated,
      sso_satisfies_two_factor: configuration.ssoSatisfiesTwoFactor,
      ...addresses,
      certificate,
      tested_at: row.tested_at,
      updated_at: row.updated_at,
    };
  }

  /**
   * Replaces the configuration. A change to anything but `enabled` voids the last passed test; `enabled: true`
   * needs one for the configuration as saved (409 `saml_test_required`).
   */
  replace(origin: AuditOrigin, change: SamlSettingsChange, now: Date): SamlSettings {
    const { orgId } = origin;
    checkIdpCertificate(change.idp_certificate, now);
    this.transaction(() => {
      const current = this.repository.configuration(orgId);
      const next: SamlConfigurationRow = {
        org_id: orgId,
        enabled: change.enabled ? 1 : 0,
        idp_sso_url: change.idp_sso_url,
        idp_entity_id: change.idp_entity_id,
        idp_certificate: change.idp_certificate.trim(),
        attribute_mapping: JSON.stringify(change.attribute_mapping),
        role_values: JSON.stringify(change.role_values),
        default_role: change.default_role,
        jit_provisioning: change.jit_provisioning ? 1 : 0,
        allow_idp_initiated: change.allow_idp_initiated ? 1 : 0,
        sso_satisfies_two_factor: change.sso_satisfies_two_factor ? 1 : 0,
        updated_at: current?.updated_at ?? now.toISOString(),
        tested_at: current?.tested_at ?? null,
      };
      const changed = current === undefined ? [...testedFields] : testedFields.filter((field) => current[field] !== next[field]);
      if (changed.length > 0) {
        next.updated_at = now.toISOString();
        next.tested_at = null;
      }
      if (next.enabled === 1 && next.tested_at === null) {
        throw new ConflictError('saml_test_required', 'Test the configuration as it is saved (POST /v1/org/saml/test) before enabling SAML', 'enabled');
      }
      if (changed.length === 0 && current?.enabled === next.enabled) return;
      this.repository.save(next);
      const details = { changed, ...(current?.enabled !== next.enabled && { enabled: next.enabled === 1 }) };
      this.audit.record({ origin, action: 'saml.updated', target: { type: 'organization', id: orgId }, details }, now);
    });
    return this.settings(orgId, now);
  }
}
