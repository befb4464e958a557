export const scopes = ['databases', 'metrics', 'queries', 'alerts', 'optimizations', 'webhooks', 'api_keys', 'agent'] as const;
export type Scope = (typeof scopes)[number];

/** Keys get every scope but `agent` (agent keys are for agents only) and `api_keys` (a key that may make keys must ask for it). */
export const defaultScopes: readonly Scope[] = scopes.filter((scope) => scope !== 'agent' && scope !== 'api_keys');

export const roles = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof roles)[number];

export const accessLevels = ['read', 'write'] as const;
export type Access = (typeof accessLevels)[number];

export function roleAccess(role: Role): Access {
  return role === 'viewer' ? 'read' : 'write';
}

export function isAdminRole(role: Role): boolean {
  return role === 'owner' || role === 'admin';
}

export function narrowerAccess(a: Access, b: Access): Access {
  return a === 'write' && b === 'write' ? 'write' : 'read';
}

export function allows(granted: Access, needed: Access): boolean {
  return granted === 'write' || needed === 'read';
}
