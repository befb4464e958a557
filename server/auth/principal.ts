import type { ApiKeyKind } from './api-keys/api-key-token.js';
import type { Plan } from './identity/plans.js';
import type { Access, Role, Scope } from './permissions.js';

/** Who is calling, with the rights in force for this request. */
export interface Principal {
  orgId: string;
  plan: Plan;
  customHourlyLimit: number | null;
  credentialId: string;
  kind: ApiKeyKind;
  userId: string | null;
  role: Role | null;
  serviceAccountId: string | null;
  /** The permission the key was made with; `access` may be narrower (the user's role, the service account's permission). */
  keyPermission: Access;
  access: Access;
  scopes: readonly Scope[];
  expiresAt: string | null;
}
