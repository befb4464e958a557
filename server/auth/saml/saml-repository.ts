import type { Db } from '../../storage/open-database.js';
import type { Role } from '../permissions.js';

/** An organization's SAML configuration as stored: booleans as 0/1, the two mappings as JSON objects. */
export interface SamlConfigurationRow {
  org_id: string;
  enabled: number;
  idp_sso_url: string;
  idp_entity_id: string;
  idp_certificate: string;
  attribute_mapping: string;
  role_values: string;
  default_role: Role;
  jit_provisioning: number;
  allow_idp_initiated: number;
  sso_satisfies_two_factor: number;
  updated_at: string;
  tested_at: string | null;
}

export interface SamlRequestRow {
  id: string;
  org_id: string;
  test: number;
  /** The path of ours to go to once signed in. */
  next: string;
  expires_at: string;
}

/** SAML configurations, the AuthnRequests waiting for their answer, and the assertions already used. */
export class SamlRepository {
  readonly #configuration;
  readonly #save;
  readonly #markTested;
  readonly #insertRequest;
  readonly #takeRequest;
  readonly #insertAssertion;
  readonly #expireRequests;
  readonly #expireAssertions;

  constructor(db: Db) {
    this.#configuration = db.prepare<[string], SamlConfigurationRow>('SELECT * FROM saml_configurations WHERE org_id = ?');
    this.#save = db.prepare<SamlConfigurationRow>(
      `INSERT OR REPLACE INTO saml_configurations (org_id, enabled, idp_sso_url, idp_entity_id, idp_certificate, attribute_mapping, role_values,
         default_role, jit_provisioning, allow_idp_initiated, sso_satisfies_two_factor, updated_at, tested_at)
       VALUES (@org_id, @enabled, @idp_sso_url, @idp_entity_id, @idp_certificate, @attribute_mapping, @role_values,
         @default_role, @jit_provisioning, @allow_idp_initiated, @sso_satisfies_two_factor, @updated_at, @tested_at)`,
    );
    this.#markTested = db.prepare<[string, string, string]>('UPDATE saml_configurations SET tested_at = ? WHERE org_id = ? AND updated_at = ?');
    this.#insertRequest = db.prepare<SamlRequestRow>('INSERT INTO saml_requests (id, org_id, test, next, expires_at) VALUES (@id, @org_id, @test, @next, @expires_at)');
    this.#takeRequest = db.prepare<[string, string, string], SamlRequestRow>('DELETE FROM saml_requests WHERE id = ? AND org_id = ? AND expires_at > ? RETURNING *');
    this.#insertAssertion = db.prepare<[string, string, string]>('INSERT OR IGNORE INTO saml_assertions (org_id, assertion_id, expires_at) VALUES (?, ?, ?)');
    this.#expireRequests = db.prepare<[string, number]>(
      'DELETE FROM saml_requests WHERE rowid IN (SELECT rowid FROM saml_requests WHERE expires_at <= ? LIMIT ?)',
    );
    this.#expireAssertions = db.prepare<[string, number]>(
      'DELETE FROM saml_assertions WHERE rowid IN (SELECT rowid FROM saml_assertions WHERE expires_at <= ? LIMIT ?)',
    );
  }

  configuration(orgId: string): SamlConfigurationRow | undefined {
    return this.#configuration.get(orgId);
  }

  save(row: SamlConfigurationRow): void {
    this.#save.run(row);
  }

  /** Records a passed test, unless the configuration changed since the test began (`updatedAt` no longer current). */
  markTested(orgId: string, updatedAt: string, at: string): boolean {
    return this.#markTested.run(at, orgId, updatedAt).changes === 1;
  }

  insertRequest(request: SamlRequestRow): void {
    this.#insertRequest.run(request);
  }

  /** The request with this id, removed: a second answer to it finds nothing. */
  takeRequest(id: string, orgId: string, now: string): SamlRequestRow | undefined {
    return this.#takeRequest.get(id, orgId, now);
  }

  /** False when this assertion was used before. */
  useAssertion(orgId: string, assertionId: string, expiresAt: string): boolean {
    return this.#insertAssertion.run(orgId, assertionId, expiresAt).changes === 1;
  }

  /** Forgets at most `batch` requests and `batch` assertions past their expiry; the larger of the two counts. */
  expire(now: string, batch: number): number {
    return Math.max(this.#expireRequests.run(now, batch).changes, this.#expireAssertions.run(now, batch).changes);
  }
}
