import type { IdentityProviderRow } from './identity-providers-repository.js';
import type { UserIdentityRow } from './user-identities-repository.js';

export function presentProvider(row: IdentityProviderRow, callbackUrl: string) {
  return {
    provider: row.provider,
    client_id: row.client_id,
    client_secret_set: true as const,
    base_url: row.base_url,
    tenant: row.tenant,
    enabled: row.enabled === 1,
    callback_url: callbackUrl,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentIdentity(row: UserIdentityRow) {
  return { id: row.id, provider: row.provider, email: row.email, created_at: row.created_at, last_used_at: row.last_used_at };
}
