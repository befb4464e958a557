import { PermissionError } from '../../errors.js';
import type { Role } from '../permissions.js';

/** The owner or admin managing other users (the routes admit no one else). */
export interface Administrator {
  userId: string;
  role: Role;
}

/** Only an owner makes someone an owner; an admin grants any other role. */
export function requireMayGrant(actor: Administrator, role: Role): void {
  if (role === 'owner' && actor.role !== 'owner') throw new PermissionError('Only owners may make a user owner');
}

/** Only an owner changes, disables or removes an owner. */
export function requireMayManage(actor: Administrator, target: { role: Role }): void {
  if (target.role === 'owner' && actor.role !== 'owner') throw new PermissionError('Only owners may change, disable or remove an owner');
}
