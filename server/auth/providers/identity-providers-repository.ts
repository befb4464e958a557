import type { Db } from '../../storage/open-database.js';
import type { ProviderKind } from './provider-kinds.js';

/** One organization's settings for one provider, as stored: the secret sealed, booleans as 0/1. */
export interface IdentityProviderRow {
  org_id: string;
  provider: ProviderKind;
  client_id: string;
  client_secret: Buffer;
  base_url: string | null;
  tenant: string | null;
  enabled: number;
  created_at: string;
  updated_at: string;
}

export class IdentityProvidersRepository {
  readonly #upsert;
  readonly #find;
  readonly #list;
  readonly #delete;

  constructor(db: Db) {
    this.#upsert = db.prepare<IdentityProviderRow>(
      `INSERT INTO identity_providers (org_id, provider, client_id, client_secret, base_url, tenant, enabled, created_at, updated_at)
       VALUES (@org_id, @provider, @client_id, @client_secret, @base_url, @tenant, @enabled, @created_at, @updated_at)
       ON CONFLICT (org_id, provider) DO UPDATE SET client_id = excluded.client_id, client_secret = excluded.client_secret,
         base_url = excluded.base_url, tenant = excluded.tenant, enabled = excluded.enabled, updated_at = excluded.updated_at`,
    );
    this.#find = db.prepare<[string, string], IdentityProviderRow>('SELECT * FROM identity_providers WHERE org_id = ? AND provider = ?');
    this.#list = db.prepare<[string], IdentityProviderRow>('SELECT * FROM identity_providers WHERE org_id = ? ORDER BY provider');
    this.#delete = db.prepare<[string, string]>('DELETE FROM identity_providers WHERE org_id = ? AND provider = ?');
  }

  save(row: IdentityProviderRow): void {
    this.#upsert.run(row);
  }

  find(orgId: string, provider: ProviderKind): IdentityProviderRow | undefined {
    return this.#find.get(orgId, provider);
  }

  list(orgId: string): IdentityProviderRow[] {
    return this.#list.all(orgId);
  }

  delete(orgId: string, provider: ProviderKind): boolean {
    return this.#delete.run(orgId, provider).changes === 1;
  }
}
