import type { RequestClient } from '../../http/request-client.js';
import { originOf } from '../audit/audit-origin.js';
import type { User } from '../identity/user.js';
import type { Principal } from '../principal.js';
import type { FactorOwner } from './two-factor-service.js';

/** A user acting on their own factors through this credential: a session making the change stays when the others end. */
export function factorOwnerOf(principal: Principal, user: User, client: RequestClient): FactorOwner {
  return {
    origin: originOf(principal, client),
    user,
    keepSessionId: principal.credential.kind === 'session' ? principal.credential.id : null,
  };
}
