import type { Scope } from '../permissions.js';
import type { ApiKeyListRow } from './api-keys-repository.js';

export function presentApiKey(row: ApiKeyListRow) {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    permission: row.permission,
    scopes: JSON.parse(row.scopes) as Scope[],
    prefix: row.prefix,
    last4: row.last4,
    user_id: row.user_id,
    service_account: row.service_account_name,
    expires_at: row.expires_at,
    last_used_at: row.last_used_at,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
    parent_key_id: row.parent_key_id,
  };
}
