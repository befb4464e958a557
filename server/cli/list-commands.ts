import { presentApiKey } from '../auth/api-keys/api-key-presenter.js';
import type { ApiKeysService } from '../auth/api-keys/api-keys-service.js';
import type { IdentityService } from '../auth/identity/identity-service.js';
import { formatTable } from './format-table.js';

export interface ListOptions {
  /** One organization, or all of them (null). */
  orgId: string | null;
  json: boolean;
  now: Date;
}

type Print = (line: string) => void;

/** `dbmon orgs list`: every organization. */
export function listOrganizations(identity: IdentityService, options: ListOptions, print: Print): void {
  const organizations = identity.listOrganizations().map((organization) => ({
    id: organization.id,
    name: organization.name,
    slug: organization.slug,
    plan: organization.plan,
    custom_hourly_limit: organization.custom_hourly_limit,
    created_at: organization.created_at,
  }));
  if (options.json) return print(JSON.stringify(organizations));
  const rows = organizations.map((o) => [o.id, o.name, o.plan, o.custom_hourly_limit, o.created_at]);
  formatTable(['ID', 'NAME', 'PLAN', 'HOURLY LIMIT', 'CREATED'], rows).forEach((line) => print(line));
}

/** `dbmon users list`: users and their roles; never a password hash, only whether there is one. */
export function listUsers(identity: IdentityService, options: ListOptions, print: Print): void {
  const users = identity.listUsers(options.orgId).map((user) => ({
    id: user.id,
    org_id: user.org_id,
    email: user.email,
    name: user.name,
    role: user.role,
    has_password: user.password_hash !== null,
    created_at: user.created_at,
  }));
  if (options.json) return print(JSON.stringify(users));
  const rows = users.map((u) => [u.id, u.org_id, u.email, u.name, u.role, u.has_password ? 'yes' : 'no', u.created_at]);
  formatTable(['ID', 'ORG', 'EMAIL', 'NAME', 'ROLE', 'PASSWORD', 'CREATED'], rows).forEach((line) => print(line));
}

/** `dbmon keys list`: every key, revoked and expired ones included, with its state; never a key value. */
export function listApiKeys(apiKeys: ApiKeysService, options: ListOptions, print: Print): void {
  const keys = apiKeys.listAll(options.orgId).map((row) => ({
    ...presentApiKey(row),
    org_id: row.org_id,
    state: keyState(row, options.now),
  }));
  if (options.json) return print(JSON.stringify(keys));
  const rows = keys.map((k) => [
    k.id,
    k.org_id,
    k.name,
    k.kind,
    k.service_account ?? k.user_id,
    k.permission,
    `${k.prefix}...${k.last4}`,
    k.state,
    k.expires_at,
    k.last_used_at,
  ]);
  formatTable(['ID', 'ORG', 'NAME', 'KIND', 'OWNER', 'PERMISSION', 'KEY', 'STATE', 'EXPIRES', 'LAST USED'], rows).forEach((line) => print(line));
}

function keyState(row: { revoked_at: string | null; expires_at: string | null }, now: Date): 'active' | 'revoked' | 'expired' {
  if (row.revoked_at !== null) return 'revoked';
  return row.expires_at !== null && Date.parse(row.expires_at) <= now.getTime() ? 'expired' : 'active';
}
