import type { AccessRequirement } from '../http/authenticate.js';
import { personCredentials } from './principal.js';

/** Owners and admins, through a session or a personal token; writes through a token also need the `api_keys` scope. */
export function administration(access: 'read' | 'write'): AccessRequirement {
  return { access, roles: ['owner', 'admin'], credentials: personCredentials, ...(access === 'write' && { scope: 'api_keys' }) };
}

export const administrationNote = 'Owners and admins, through a session or a personal token (writes through a token need the `api_keys` scope).';
