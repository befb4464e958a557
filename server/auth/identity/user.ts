import type { Role } from '../permissions.js';

export const userStatuses = ['invited', 'active', 'disabled'] as const;
export type UserStatus = (typeof userStatuses)[number];

/** A person of an organization as stored: what the account features know of one (they never read its table). */
export interface User {
  id: string;
  org_id: string;
  email: string;
  name: string;
  role: Role;
  password_hash: string | null;
  created_at: string;
  status: UserStatus;
  last_sign_in_at: string | null;
  /** 1 once the user has a confirmed second factor. */
  two_factor_enabled: number;
}
