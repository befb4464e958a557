import type { Access } from '../auth/permissions.js';
import type { AccessRequirement } from '../http/authenticate.js';

/** `/v1/agent/*`: agent keys only, that is service-account keys with the `agent` scope; never a person's token or session. */
export function agentAccess(access: Access): AccessRequirement {
  return { scope: 'agent', access, credentials: ['service_account_key'] };
}
